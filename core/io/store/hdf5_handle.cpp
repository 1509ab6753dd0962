#include "io/store/hdf5_handle.h"

#include <algorithm>
#include <vector>

#include "common/error.h"

namespace strata::io::hdf5 {
namespace {

std::string attributeItem(const Location& where, const std::string& name) {
  return where.objectName + "@" + name;
}

herr_t collectMessage(unsigned /*n*/, const H5E_error2_t* error, void* data) {
  auto* messages = static_cast<std::vector<std::string>*>(data);
  if (error->desc != nullptr && error->desc[0] != '\0') messages->emplace_back(error->desc);
  return 0;
}

// Opens a scalar (one-element) attribute, or nullopt when absent.
std::optional<Attribute> openScalarAttribute(const Location& where, const std::string& name) {
  const htri_t present = H5Aexists(where.id, name.c_str());
  if (present < 0) {
    throw FormatError(where.file, "cannot look up the attribute" + detailSuffix(),
                      attributeItem(where, name), "attribute");
  }
  if (present == 0) return std::nullopt;
  Attribute attribute(H5Aopen(where.id, name.c_str(), H5P_DEFAULT));
  Dataspace space(attribute ? H5Aget_space(attribute.get()) : H5I_INVALID_HID);
  if (!space || H5Sget_simple_extent_npoints(space.get()) != 1) {
    throw FormatError(where.file, "must hold exactly one value" + detailSuffix(),
                      attributeItem(where, name), "attribute");
  }
  return attribute;
}

void writeAttribute(const Location& where, const std::string& name, hid_t type, const void* value) {
  Dataspace scalar(H5Screate(H5S_SCALAR));
  Attribute attribute(
      H5Acreate2(where.id, name.c_str(), type, scalar.get(), H5P_DEFAULT, H5P_DEFAULT));
  if (!attribute || H5Awrite(attribute.get(), type, value) < 0) {
    throw IoError(where.file,
                  "cannot write attribute '" + attributeItem(where, name) + "'" + detailSuffix());
  }
}

}  // namespace

void quietErrors() {
  thread_local bool quiet = false;
  if (!quiet) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    quiet = true;
  }
}

namespace {

/** HDF5's file-driver messages carry the system's reason deep inside a long dump ("…, errno =
 *  28, error message = 'No space left on device', buf = …"): keep only the reason. */
std::string systemReason(const std::string& message) {
  const std::string key = "error message = '";
  const size_t at = message.find(key);
  if (at == std::string::npos) return message;
  const size_t start = at + key.size();
  const std::string reason = message.substr(start, message.find('\'', start) - start);
  return message.find("errno = 28,") != std::string::npos ? "disk full (" + reason + ")" : reason;
}

}  // namespace

std::string takeErrorDetail() {
  std::vector<std::string> messages;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, collectMessage, &messages);
  H5Eclear2(H5E_DEFAULT);
  if (messages.empty()) return {};
  // The outermost message says what failed ("unable to open file"), the innermost why
  // ("file signature not found"); the middle ones repeat the first in internal words.
  if (messages.size() == 1) return systemReason(messages.front());
  return messages.front() + ": " + systemReason(messages.back());
}

std::string detailSuffix() {
  const std::string detail = takeErrorDetail();
  return detail.empty() ? std::string() : " (HDF5: " + detail + ")";
}

Datatype halfType() {
  // Same recipe as h5py's IEEE_F16LE: sign bit 15, exponent bits 10..14, mantissa 0..9.
  Datatype type(H5Tcopy(H5T_IEEE_F32LE));
  if (!type || H5Tset_fields(type.get(), 15, 10, 5, 0, 10) < 0 || H5Tset_size(type.get(), 2) < 0 ||
      H5Tset_ebias(type.get(), 15) < 0) {
    throw Error("cannot build the HDF5 float16 type" + detailSuffix());
  }
  return type;
}

Datatype utf8StringType(size_t bytes) {
  // Fixed-length, not variable-length: a vlen string lives in the file's global heap, and
  // libhdf5 1.10 spins forever reading a damaged global-heap collection (found by
  // fuzz_activation_store). Null-padded so that h5py returns every byte.
  Datatype type(H5Tcopy(H5T_C_S1));
  if (!type || H5Tset_size(type.get(), std::max<size_t>(bytes, 1)) < 0 ||
      H5Tset_strpad(type.get(), H5T_STR_NULLPAD) < 0 ||
      H5Tset_cset(type.get(), H5T_CSET_UTF8) < 0) {
    throw Error("cannot build the HDF5 string type" + detailSuffix());
  }
  return type;
}

PropertyList latestFormatAccess() {
  PropertyList fapl(H5Pcreate(H5P_FILE_ACCESS));
  if (!fapl || H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_LATEST, H5F_LIBVER_LATEST) < 0) {
    throw Error("cannot build an HDF5 file-access list" + detailSuffix());
  }
  return fapl;
}

void writeStringAttribute(const Location& where, const std::string& name,
                          const std::string& value) {
  const Datatype type = utf8StringType(value.size());
  std::string padded = value;
  padded.resize(std::max<size_t>(value.size(), 1), '\0');
  writeAttribute(where, name, type.get(), padded.data());
}

void writeInt64Attribute(const Location& where, const std::string& name, int64_t value) {
  writeAttribute(where, name, H5T_STD_I64LE, &value);
}

std::optional<std::string> readStringAttribute(const Location& where, const std::string& name) {
  std::optional<Attribute> attribute = openScalarAttribute(where, name);
  if (!attribute) return std::nullopt;
  const Datatype fileType(H5Aget_type(attribute->get()));
  if (!fileType || H5Tget_class(fileType.get()) != H5T_STRING) {
    throw FormatError(where.file, "must be a string", attributeItem(where, name), "attribute");
  }
  const htri_t variable = H5Tis_variable_str(fileType.get());
  Datatype memType(H5Tcopy(fileType.get()));
  std::string value;
  bool ok = memType.valid() && variable >= 0;
  if (ok && variable > 0) {
    char* text = nullptr;
    ok = H5Aread(attribute->get(), memType.get(), &text) >= 0;
    if (ok && text != nullptr) value = text;
    if (text != nullptr) H5free_memory(text);
  } else if (ok) {
    // Fixed-length: read the raw bytes and stop at the first NUL (null-padded strings).
    std::vector<char> buffer(H5Tget_size(fileType.get()) + 1, '\0');
    ok = H5Aread(attribute->get(), memType.get(), buffer.data()) >= 0;
    value = buffer.data();
  }
  if (!ok) {
    throw FormatError(where.file, "cannot read the string" + detailSuffix(),
                      attributeItem(where, name), "attribute");
  }
  return value;
}

std::optional<int64_t> readInt64Attribute(const Location& where, const std::string& name) {
  std::optional<Attribute> attribute = openScalarAttribute(where, name);
  if (!attribute) return std::nullopt;
  const Datatype fileType(H5Aget_type(attribute->get()));
  if (!fileType || H5Tget_class(fileType.get()) != H5T_INTEGER) {
    throw FormatError(where.file, "must be an integer", attributeItem(where, name), "attribute");
  }
  int64_t value = 0;
  if (H5Aread(attribute->get(), H5T_NATIVE_INT64, &value) < 0) {
    throw FormatError(where.file, "cannot read the integer" + detailSuffix(),
                      attributeItem(where, name), "attribute");
  }
  return value;
}

bool exists(hid_t parent, const std::string& path) {
  // H5Lexists fails (rather than answering false) when an intermediate group is missing, so
  // walk the path one component at a time.
  std::string prefix;
  size_t start = 0;
  while (start <= path.size()) {
    const size_t slash = path.find('/', start);
    const size_t end = slash == std::string::npos ? path.size() : slash;
    if (!prefix.empty()) prefix.push_back('/');
    prefix.append(path, start, end - start);
    if (H5Lexists(parent, prefix.c_str(), H5P_DEFAULT) <= 0) {
      H5Eclear2(H5E_DEFAULT);
      return false;
    }
    start = end + 1;
  }
  return true;
}

}  // namespace strata::io::hdf5
