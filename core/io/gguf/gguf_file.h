#pragma once
// A GGUF file (llama.cpp's model format, versions 2 and 3), memory-mapped and read without
// trusting it: every count, length and offset is checked against the file's size before it is
// used, so a damaged file is a FormatError naming the file and the key or tensor at fault —
// never a crash, a hang or an allocation larger than the file.
//
// Layout (little-endian): "GGUF", u32 version, u64 tensor count, u64 metadata count; the
// metadata (key string, u32 value type, value); the tensor infos (name, u32 dimension count,
// u64 dimensions innermost first, u32 ggml type, u64 offset into the data section); padding to
// `general.alignment` (default 32); the data section. Strings are u64 length + UTF-8 bytes.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "io/gguf/gguf_types.h"
#include "io/mapped_file.h"

namespace strata::io {

/** GGUF metadata value types (gguf_type). */
enum class GgufValueType : uint32_t {
  UInt8 = 0,
  Int8 = 1,
  UInt16 = 2,
  Int16 = 3,
  UInt32 = 4,
  Int32 = 5,
  Float32 = 6,
  Bool = 7,
  String = 8,
  Array = 9,
  UInt64 = 10,
  Int64 = 11,
  Float64 = 12,
};

/** "uint32", "string", "array", ...: for messages. */
std::string ggufValueTypeName(GgufValueType type);

struct GgufArray;

/**
 * One metadata value. Integers of every width are held as int64 or uint64 (by signedness),
 * floats as double; `type` keeps the width the file used.
 */
struct GgufValue {
  GgufValueType type = GgufValueType::UInt8;
  std::variant<uint64_t, int64_t, double, bool, std::string, std::shared_ptr<const GgufArray>>
      value;
};

struct GgufArray {
  GgufValueType elementType = GgufValueType::UInt8;
  std::vector<GgufValue> elements;
};

struct GgufTensorInfo {
  std::string name;
  std::vector<int64_t> dims;   ///< as stored: innermost (contiguous) dimension first
  std::vector<int64_t> shape;  ///< row-major (PyTorch / safetensors) order: dims reversed
  uint32_t typeId = 0;         ///< ggml type id (gguf_types.h)
  uint64_t offset = 0;         ///< from the start of the file
  uint64_t byteSize = 0;
  int64_t elementCount = 0;
};

/**
 * Thread-safety: immutable after construction; every const method may run concurrently.
 * Ownership: the mapping lives as long as the object; spans from tensorData() die with it.
 */
class GgufFile {
 public:
  /** Maps and parses `file`. Throws IoError (cannot open) or FormatError (see above). */
  explicit GgufFile(const std::filesystem::path& file);

  const std::filesystem::path& path() const { return m_file.path(); }
  uint32_t version() const { return m_version; }
  uint64_t alignment() const { return m_alignment; }
  uint64_t dataOffset() const { return m_dataOffset; }
  uint64_t fileSize() const { return m_file.bytes().size(); }

  /** Keys in file order with their values. */
  const std::vector<std::pair<std::string, GgufValue>>& metadata() const { return m_metadata; }
  /** The value of `key`, or nullptr when the file has no such key. */
  const GgufValue* find(const std::string& key) const;
  bool has(const std::string& key) const { return find(key) != nullptr; }

  // Typed reads of one key. Each throws FormatError naming the file and the key when the key
  // is missing or holds another type; an integer of any width reads as either integer kind
  // when its value fits.
  std::string string(const std::string& key) const;
  uint64_t unsignedInteger(const std::string& key) const;
  int64_t integer(const std::string& key) const;
  double number(const std::string& key) const;  ///< a float or an integer
  bool boolean(const std::string& key) const;
  std::vector<std::string> stringArray(const std::string& key) const;
  std::vector<double> numberArray(const std::string& key) const;
  std::vector<int64_t> integerArray(const std::string& key) const;

  /** Tensors in file order. */
  const std::vector<GgufTensorInfo>& tensors() const { return m_tensors; }
  /** The tensor called `name`, or nullptr. */
  const GgufTensorInfo* findTensor(const std::string& name) const;
  /** The stored bytes of `tensor` (checked to lie inside the file when the file was read). */
  std::span<const std::byte> tensorData(const GgufTensorInfo& tensor) const;
  /** Drops `tensor`'s mapped pages from the resident set once it has been converted (advice
   *  only; see MappedFile::release). */
  void releaseTensorData(const GgufTensorInfo& tensor) const { m_file.release(tensorData(tensor)); }

 private:
  MappedFile m_file;
  uint32_t m_version = 0;
  uint64_t m_alignment = 32;
  uint64_t m_dataOffset = 0;
  std::vector<std::pair<std::string, GgufValue>> m_metadata;
  std::map<std::string, std::size_t, std::less<>> m_keyIndex;
  std::vector<GgufTensorInfo> m_tensors;
  std::map<std::string, std::size_t, std::less<>> m_tensorIndex;
};

/** True when `file` starts with the GGUF magic (reads 4 bytes; false if it cannot be read). */
bool looksLikeGguf(const std::filesystem::path& file);

}  // namespace strata::io
