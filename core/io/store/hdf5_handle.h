#pragma once
// RAII ownership of HDF5 C API identifiers, and the few checked calls built on them.
//
// Only the C API is used: Debian's HDF5 1.10 is the thread-safe build for the C API alone
// (one global lock); the C++ API is not. Even so, Strata does all HDF5 I/O of one file from
// one thread. This header includes <hdf5.h>, so it stays internal to core/io: public headers
// hide HDF5 behind a pimpl because strata_core links HDF5 privately.

#include <hdf5.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>

namespace strata::io::hdf5 {

/** Owns one HDF5 identifier and closes it with `Close` (H5Dclose, H5Fclose, ...). Move-only. */
template <herr_t (*Close)(hid_t)>
class Handle {
 public:
  Handle() = default;
  explicit Handle(hid_t id) : m_id(id) {}
  ~Handle() { reset(); }
  Handle(Handle&& other) noexcept : m_id(std::exchange(other.m_id, H5I_INVALID_HID)) {}
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) reset(std::exchange(other.m_id, H5I_INVALID_HID));
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  hid_t get() const { return m_id; }
  bool valid() const { return m_id >= 0; }
  explicit operator bool() const { return valid(); }
  /** Gives up ownership, e.g. to close a file explicitly and check the result. */
  hid_t release() { return std::exchange(m_id, H5I_INVALID_HID); }
  /** Closes the owned identifier (a failure cannot be reported here; see release()). */
  void reset(hid_t id = H5I_INVALID_HID) {
    if (m_id >= 0) Close(m_id);
    m_id = id;
  }

 private:
  hid_t m_id = H5I_INVALID_HID;
};

using File = Handle<H5Fclose>;
using Group = Handle<H5Gclose>;
using Dataset = Handle<H5Dclose>;
using Dataspace = Handle<H5Sclose>;
using Datatype = Handle<H5Tclose>;
using Attribute = Handle<H5Aclose>;
using PropertyList = Handle<H5Pclose>;

/**
 * Turns off HDF5's printing of its error stack to stderr for the calling thread (the default
 * stack is per thread in the thread-safe build). Cheap after the first call on a thread.
 */
void quietErrors();

/**
 * The innermost messages of the calling thread's HDF5 error stack ("file signature not
 * found", ...), then clears it. Empty when the stack is empty. Appended to our own messages.
 */
std::string takeErrorDetail();

/** " (HDF5: <detail>)" or "" — the suffix our error messages carry. */
std::string detailSuffix();

/**
 * IEEE 754 binary16, little-endian. HDF5 1.10 has no predefined half type; this is the one
 * h5py builds, so h5py and numpy read such datasets as float16.
 */
Datatype halfType();

/**
 * A fixed-length, null-padded UTF-8 string type of `bytes` bytes (at least 1). Strata writes
 * fixed-length strings only (h5py reads them as bytes); see hdf5_handle.cpp for why.
 */
Datatype utf8StringType(size_t bytes);

/** A file-access property list with library-version bounds "latest", which SWMR requires. */
PropertyList latestFormatAccess();

/** Which group/dataset an attribute helper works on, for messages. */
struct Location {
  hid_t id;
  const std::filesystem::path& file;
  std::string objectName;  // "meta", "layers/3", ...
};

/**
 * Writes a scalar fixed-length UTF-8 string attribute; throws IoError naming the file and
 * attribute.
 */
void writeStringAttribute(const Location& where, const std::string& name, const std::string& value);
/** Writes a scalar int64 attribute; throws IoError naming the file and attribute. */
void writeInt64Attribute(const Location& where, const std::string& name, int64_t value);

/**
 * Reads a scalar string attribute (variable-length or fixed-length, as h5py may write
 * either). nullopt when absent; FormatError when present but not a single string.
 */
std::optional<std::string> readStringAttribute(const Location& where, const std::string& name);
/** Reads a scalar integer attribute as int64. nullopt when absent; FormatError when not one. */
std::optional<int64_t> readInt64Attribute(const Location& where, const std::string& name);

/** Whether the link `path` (relative to `parent`, may contain '/') names an existing object. */
bool exists(hid_t parent, const std::string& path);

}  // namespace strata::io::hdf5
