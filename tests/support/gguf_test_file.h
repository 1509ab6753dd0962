#pragma once
// Small GGUF files written by tests: metadata of every value type (arrays of any element type,
// arrays of arrays included) and tensors holding raw bytes. Follows the layout core/io/
// gguf_file.h reads — little-endian "GGUF", u32 version, u64 tensor count, u64 metadata count,
// the metadata (u64-length key, u32 type, value), the tensor infos (name, u32 dimension count,
// u64 dimensions innermost first, u32 ggml type, u64 offset into the data section), zero
// padding to the alignment (written even when there are no tensors, as llama.cpp and gguf-py
// do), the data section — and lets a test break any of it on purpose (bytes() is the whole
// file; the version and the offsets in tensor infos may be set by hand).

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "io/gguf/gguf_file.h"

namespace strata::testing {

// Metadata values, typed as they are written.
io::GgufValue ggufUInt8(uint8_t value);
io::GgufValue ggufInt8(int8_t value);
io::GgufValue ggufUInt16(uint16_t value);
io::GgufValue ggufInt16(int16_t value);
io::GgufValue ggufUInt32(uint32_t value);
io::GgufValue ggufInt32(int32_t value);
io::GgufValue ggufUInt64(uint64_t value);
io::GgufValue ggufInt64(int64_t value);
io::GgufValue ggufFloat32(float value);
io::GgufValue ggufFloat64(double value);
io::GgufValue ggufBool(bool value);
io::GgufValue ggufString(std::string value);
/** An array whose elements all have `elementType` (each element's own type is not checked, so
 *  a test can write a mislabelled array). */
io::GgufValue ggufArray(io::GgufValueType elementType, std::vector<io::GgufValue> elements);
io::GgufValue ggufStringArray(const std::vector<std::string>& values);
io::GgufValue ggufInt32Array(const std::vector<int32_t>& values);
io::GgufValue ggufFloat32Array(const std::vector<float>& values);

/** One tensor: its info and its stored bytes. */
struct GgufTestTensor {
  std::string name;
  std::vector<int64_t> dims;  ///< as stored: innermost (contiguous) dimension first
  uint32_t typeId = 0;        ///< ggml type id (0 = F32, 1 = F16, ...)
  std::string data;           ///< the raw bytes, written as they are
  /** The offset written in the tensor info, to state a wrong one on purpose (misaligned,
   *  overlapping, past the end). The bytes themselves always go where the default puts them:
   *  the next multiple of the alignment after the previous tensor's data. */
  std::optional<uint64_t> offset = std::nullopt;
};

/** A GGUF file under construction. Metadata keeps the order of set(); setting a key again
 *  replaces its value in place. Padding and default tensor offsets follow general.alignment
 *  when it is set to a positive integer (3 included, for tests of the reader), else 32. */
class GgufTestFile {
 public:
  GgufTestFile& setVersion(uint32_t version);
  GgufTestFile& set(const std::string& key, io::GgufValue value);
  GgufTestFile& addTensor(GgufTestTensor tensor);
  /** A float32 tensor of shape `dims` (innermost first) holding `values`. */
  GgufTestFile& addF32Tensor(const std::string& name, std::vector<int64_t> dims,
                             const std::vector<float>& values);

  /** The whole file. */
  std::string bytes() const;
  /** Writes bytes() to `file`; throws std::runtime_error when it cannot. */
  void write(const std::filesystem::path& file) const;

 private:
  uint64_t alignment() const;

  uint32_t m_version = 3;
  std::vector<std::pair<std::string, io::GgufValue>> m_metadata;
  std::vector<GgufTestTensor> m_tensors;
};

}  // namespace strata::testing
