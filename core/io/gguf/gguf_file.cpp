#include "io/gguf/gguf_file.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <fstream>
#include <limits>

#include "common/error.h"

namespace strata::io {

namespace fs = std::filesystem;

namespace {

static_assert(std::endian::native == std::endian::little, "GGUF is read as little-endian");

constexpr uint32_t kMagic = 0x46554747;  // "GGUF" read as a little-endian u32
// Deeper nesting than an array of arrays of arrays is not used by any writer; refusing it keeps a
// hostile file from recursing the parser's stack away.
constexpr int kMaxArrayDepth = 3;
constexpr int kMaxDims = 4;  // GGML_MAX_DIMS

/** Reads the header and metadata section with every read bounds-checked. `what` names the key
 *  or tensor being read, so errors point at it. */
class Cursor {
 public:
  Cursor(std::span<const std::byte> bytes, fs::path file)
      : m_bytes(bytes), m_file(std::move(file)) {}

  uint64_t position() const { return m_pos; }
  uint64_t remaining() const { return m_bytes.size() - m_pos; }

  template <typename T>
  T read(const std::string& what, const std::string& kind) {
    need(sizeof(T), what, kind);
    T value;
    std::memcpy(&value, m_bytes.data() + m_pos, sizeof(T));
    m_pos += sizeof(T);
    return value;
  }

  std::string readString(const std::string& what, const std::string& kind) {
    const auto length = read<uint64_t>(what, kind);
    if (length > remaining())
      fail("a string of " + std::to_string(length) + " bytes runs past the end of the file", what,
           kind);
    std::string text(reinterpret_cast<const char*>(m_bytes.data() + m_pos), length);
    m_pos += length;
    return text;
  }

  [[noreturn]] void fail(const std::string& problem, const std::string& what,
                         const std::string& kind = "tensor") const {
    throw FormatError(m_file, problem, what, kind);
  }

 private:
  void need(uint64_t count, const std::string& what, const std::string& kind) const {
    if (count > remaining()) fail("the file is truncated (header ends early)", what, kind);
  }

  std::span<const std::byte> m_bytes;
  fs::path m_file;
  uint64_t m_pos = 0;
};

/** Smallest size one element of `type` takes in the file: bounds an array's count. */
uint64_t minimumEncodedSize(GgufValueType type) {
  switch (type) {
    case GgufValueType::UInt8:
    case GgufValueType::Int8:
    case GgufValueType::Bool:
      return 1;
    case GgufValueType::UInt16:
    case GgufValueType::Int16:
      return 2;
    case GgufValueType::UInt32:
    case GgufValueType::Int32:
    case GgufValueType::Float32:
      return 4;
    case GgufValueType::String:  // u64 length
    case GgufValueType::UInt64:
    case GgufValueType::Int64:
    case GgufValueType::Float64:
      return 8;
    case GgufValueType::Array:  // u32 type + u64 count
      return 12;
  }
  return 1;
}

bool knownValueType(uint32_t type) { return type <= static_cast<uint32_t>(GgufValueType::Float64); }

GgufValue readValue(Cursor& in, GgufValueType type, const std::string& key, int depth) {
  GgufValue v;
  v.type = type;
  const std::string kind = "key";
  switch (type) {
    case GgufValueType::UInt8:
      v.value = uint64_t{in.read<uint8_t>(key, kind)};
      break;
    case GgufValueType::Int8:
      v.value = int64_t{in.read<int8_t>(key, kind)};
      break;
    case GgufValueType::UInt16:
      v.value = uint64_t{in.read<uint16_t>(key, kind)};
      break;
    case GgufValueType::Int16:
      v.value = int64_t{in.read<int16_t>(key, kind)};
      break;
    case GgufValueType::UInt32:
      v.value = uint64_t{in.read<uint32_t>(key, kind)};
      break;
    case GgufValueType::Int32:
      v.value = int64_t{in.read<int32_t>(key, kind)};
      break;
    case GgufValueType::UInt64:
      v.value = in.read<uint64_t>(key, kind);
      break;
    case GgufValueType::Int64:
      v.value = in.read<int64_t>(key, kind);
      break;
    case GgufValueType::Float32:
      v.value = double{in.read<float>(key, kind)};
      break;
    case GgufValueType::Float64:
      v.value = in.read<double>(key, kind);
      break;
    case GgufValueType::Bool: {
      const auto b = in.read<uint8_t>(key, kind);
      if (b > 1) in.fail("a bool holds " + std::to_string(b) + " (only 0 or 1)", key, kind);
      v.value = b == 1;
      break;
    }
    case GgufValueType::String:
      v.value = in.readString(key, kind);
      break;
    case GgufValueType::Array: {
      const auto elementType = in.read<uint32_t>(key, kind);
      if (!knownValueType(elementType))
        in.fail("an array of unknown value type " + std::to_string(elementType), key, kind);
      const auto count = in.read<uint64_t>(key, kind);
      const auto element = static_cast<GgufValueType>(elementType);
      // `depth` arrays enclose this one; an element that is an array is one level more.
      if (element == GgufValueType::Array && depth + 2 > kMaxArrayDepth)
        in.fail("arrays nested more than " + std::to_string(kMaxArrayDepth) + " deep", key, kind);
      // Every element takes at least a few bytes, so a count the rest of the file cannot hold
      // is refused before anything is allocated for it.
      if (count > in.remaining() / minimumEncodedSize(element))
        in.fail("an array of " + std::to_string(count) + " " + ggufValueTypeName(element) +
                    " elements cannot fit in the rest of the file",
                key, kind);
      auto array = std::make_shared<GgufArray>();
      array->elementType = element;
      array->elements.reserve(count);
      for (uint64_t i = 0; i < count; ++i)
        array->elements.push_back(readValue(in, element, key, depth + 1));
      v.value = std::shared_ptr<const GgufArray>(std::move(array));
      break;
    }
  }
  return v;
}

uint64_t alignUp(uint64_t offset, uint64_t alignment) {
  const uint64_t rest = offset % alignment;
  return rest == 0 ? offset : offset + (alignment - rest);
}

bool isInteger(const GgufValue& v) {
  return std::holds_alternative<uint64_t>(v.value) || std::holds_alternative<int64_t>(v.value);
}

}  // namespace

std::string ggufValueTypeName(GgufValueType type) {
  switch (type) {
    case GgufValueType::UInt8:
      return "uint8";
    case GgufValueType::Int8:
      return "int8";
    case GgufValueType::UInt16:
      return "uint16";
    case GgufValueType::Int16:
      return "int16";
    case GgufValueType::UInt32:
      return "uint32";
    case GgufValueType::Int32:
      return "int32";
    case GgufValueType::Float32:
      return "float32";
    case GgufValueType::Bool:
      return "bool";
    case GgufValueType::String:
      return "string";
    case GgufValueType::Array:
      return "array";
    case GgufValueType::UInt64:
      return "uint64";
    case GgufValueType::Int64:
      return "int64";
    case GgufValueType::Float64:
      return "float64";
  }
  return "type " + std::to_string(static_cast<uint32_t>(type));
}

GgufFile::GgufFile(const fs::path& file) : m_file(file) {
  const auto bytes = m_file.bytes();
  Cursor in(bytes, file);
  const std::string header = "header";
  if (bytes.size() < 4 || in.read<uint32_t>("magic", header) != kMagic)
    in.fail("not a GGUF file (it does not start with \"GGUF\")", "magic", header);
  m_version = in.read<uint32_t>("version", header);
  if (m_version != 2 && m_version != 3)
    in.fail("GGUF version " + std::to_string(m_version) + " is not supported (only 2 and 3)",
            "version", header);
  const auto tensorCount = in.read<uint64_t>("tensor count", header);
  const auto keyCount = in.read<uint64_t>("metadata count", header);
  // A key takes at least 12 bytes (length + type), a tensor info at least 24.
  if (keyCount > in.remaining() / 12)
    in.fail(std::to_string(keyCount) + " metadata entries cannot fit in the file", "metadata count",
            header);
  if (tensorCount > in.remaining() / 24)
    in.fail(std::to_string(tensorCount) + " tensors cannot fit in the file", "tensor count",
            header);

  m_metadata.reserve(keyCount);
  for (uint64_t i = 0; i < keyCount; ++i) {
    const std::string where = "metadata entry " + std::to_string(i);
    std::string key = in.readString(where, "key");
    if (key.empty()) in.fail("a metadata key is empty", where, "key");
    if (m_keyIndex.count(key)) in.fail("the key appears twice", key, "key");
    const auto type = in.read<uint32_t>(key, "key");
    if (!knownValueType(type)) in.fail("unknown value type " + std::to_string(type), key, "key");
    GgufValue value = readValue(in, static_cast<GgufValueType>(type), key, 0);
    m_keyIndex.emplace(key, m_metadata.size());
    m_metadata.emplace_back(std::move(key), std::move(value));
  }

  if (const GgufValue* a = find("general.alignment")) {
    if (!isInteger(*a)) in.fail("must be an integer", "general.alignment", "key");
    m_alignment = unsignedInteger("general.alignment");
    if (m_alignment == 0 || (m_alignment & (m_alignment - 1)) != 0 || m_alignment > (1u << 20))
      in.fail("alignment " + std::to_string(m_alignment) + " is not a power of two up to 1 MiB",
              "general.alignment", "key");
  }

  m_tensors.reserve(tensorCount);
  for (uint64_t i = 0; i < tensorCount; ++i) {
    GgufTensorInfo t;
    t.name = in.readString("tensor info " + std::to_string(i), "tensor");
    if (t.name.empty()) in.fail("a tensor name is empty", "tensor info " + std::to_string(i));
    if (m_tensorIndex.count(t.name)) in.fail("the tensor name appears twice", t.name);
    const auto dimCount = in.read<uint32_t>(t.name, "tensor");
    if (dimCount == 0 || dimCount > kMaxDims)
      in.fail(std::to_string(dimCount) + " dimensions (GGUF allows 1 to 4)", t.name);
    t.elementCount = 1;
    for (uint32_t d = 0; d < dimCount; ++d) {
      const auto dim = in.read<uint64_t>(t.name, "tensor");
      // No dimension can exceed the file's byte count times a block's elements (at most 256 per
      // few bytes); 2^40 keeps the element product far from int64 overflow at 4 dimensions.
      if (dim == 0 || dim > (uint64_t{1} << 40) ||
          static_cast<uint64_t>(t.elementCount) > (uint64_t{1} << 62) / dim)
        in.fail("dimension " + std::to_string(d) + " is " + std::to_string(dim), t.name);
      t.dims.push_back(static_cast<int64_t>(dim));
      t.elementCount *= static_cast<int64_t>(dim);
    }
    t.shape.assign(t.dims.rbegin(), t.dims.rend());
    t.typeId = in.read<uint32_t>(t.name, "tensor");
    const auto traits = ggmlTypeTraits(t.typeId);
    if (!traits) in.fail("unknown tensor type " + std::to_string(t.typeId), t.name);
    if (t.dims[0] % traits->blockSize != 0)
      in.fail("its row of " + std::to_string(t.dims[0]) + " elements is not a whole number of " +
                  traits->name + " blocks of " + std::to_string(traits->blockSize),
              t.name);
    t.byteSize = static_cast<uint64_t>(t.elementCount / traits->blockSize) *
                 static_cast<uint64_t>(traits->typeSize);
    t.offset = in.read<uint64_t>(t.name, "tensor");  // relative for now
    if (t.offset % m_alignment != 0)
      in.fail("its offset " + std::to_string(t.offset) + " is not a multiple of the alignment " +
                  std::to_string(m_alignment),
              t.name);
    m_tensorIndex.emplace(t.name, m_tensors.size());
    m_tensors.push_back(std::move(t));
  }

  m_dataOffset = alignUp(in.position(), m_alignment);
  if (m_dataOffset > bytes.size() && !m_tensors.empty())
    in.fail("the data section starts past the end of the file", "data section", "header");

  // Every tensor inside the file, and no two overlapping (checked in offset order).
  std::vector<std::size_t> order(m_tensors.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return m_tensors[a].offset < m_tensors[b].offset;
  });
  const uint64_t dataSize = bytes.size() >= m_dataOffset ? bytes.size() - m_dataOffset : 0;
  uint64_t previousEnd = 0;
  const GgufTensorInfo* previous = nullptr;
  for (std::size_t index : order) {
    GgufTensorInfo& t = m_tensors[index];
    if (t.offset > dataSize || t.byteSize > dataSize - t.offset)
      in.fail("its data (" + std::to_string(t.byteSize) + " bytes at data offset " +
                  std::to_string(t.offset) + ") runs past the end of the file (truncated?)",
              t.name);
    if (previous && t.offset < previousEnd)
      in.fail("its data overlaps tensor '" + previous->name + "'", t.name);
    previousEnd = t.offset + t.byteSize;
    previous = &t;
    t.offset += m_dataOffset;
  }
}

const GgufValue* GgufFile::find(const std::string& key) const {
  const auto it = m_keyIndex.find(key);
  return it == m_keyIndex.end() ? nullptr : &m_metadata[it->second].second;
}

namespace {

[[noreturn]] void wrongType(const fs::path& file, const std::string& key, const GgufValue& v,
                            const std::string& expected) {
  throw FormatError(file, "holds " + ggufValueTypeName(v.type) + ", expected " + expected, key,
                    "key");
}

const GgufValue& required(const GgufFile& gguf, const std::string& key) {
  const GgufValue* v = gguf.find(key);
  if (!v) throw FormatError(gguf.path(), "is missing", key, "key");
  return *v;
}

int64_t asInteger(const fs::path& file, const std::string& key, const GgufValue& v) {
  if (const auto* s = std::get_if<int64_t>(&v.value)) return *s;
  if (const auto* u = std::get_if<uint64_t>(&v.value)) {
    if (*u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      throw FormatError(file, "value " + std::to_string(*u) + " is too large", key, "key");
    return static_cast<int64_t>(*u);
  }
  wrongType(file, key, v, "an integer");
}

double asNumber(const fs::path& file, const std::string& key, const GgufValue& v) {
  if (const auto* d = std::get_if<double>(&v.value)) return *d;
  if (const auto* u = std::get_if<uint64_t>(&v.value)) return static_cast<double>(*u);
  if (const auto* s = std::get_if<int64_t>(&v.value)) return static_cast<double>(*s);
  wrongType(file, key, v, "a number");
}

const GgufArray& asArray(const fs::path& file, const std::string& key, const GgufValue& v) {
  if (const auto* a = std::get_if<std::shared_ptr<const GgufArray>>(&v.value)) return **a;
  wrongType(file, key, v, "an array");
}

}  // namespace

std::string GgufFile::string(const std::string& key) const {
  const GgufValue& v = required(*this, key);
  if (const auto* s = std::get_if<std::string>(&v.value)) return *s;
  wrongType(path(), key, v, "a string");
}

uint64_t GgufFile::unsignedInteger(const std::string& key) const {
  const GgufValue& v = required(*this, key);
  if (const auto* u = std::get_if<uint64_t>(&v.value)) return *u;
  const int64_t s = asInteger(path(), key, v);
  if (s < 0) throw FormatError(path(), "is negative (" + std::to_string(s) + ")", key, "key");
  return static_cast<uint64_t>(s);
}

int64_t GgufFile::integer(const std::string& key) const {
  return asInteger(path(), key, required(*this, key));
}

double GgufFile::number(const std::string& key) const {
  return asNumber(path(), key, required(*this, key));
}

bool GgufFile::boolean(const std::string& key) const {
  const GgufValue& v = required(*this, key);
  if (const auto* b = std::get_if<bool>(&v.value)) return *b;
  wrongType(path(), key, v, "a bool");
}

std::vector<std::string> GgufFile::stringArray(const std::string& key) const {
  const GgufArray& a = asArray(path(), key, required(*this, key));
  std::vector<std::string> out;
  out.reserve(a.elements.size());
  for (const GgufValue& e : a.elements) {
    const auto* s = std::get_if<std::string>(&e.value);
    if (!s) wrongType(path(), key, e, "an array of strings");
    out.push_back(*s);
  }
  return out;
}

std::vector<double> GgufFile::numberArray(const std::string& key) const {
  const GgufArray& a = asArray(path(), key, required(*this, key));
  std::vector<double> out;
  out.reserve(a.elements.size());
  for (const GgufValue& e : a.elements) out.push_back(asNumber(path(), key, e));
  return out;
}

std::vector<int64_t> GgufFile::integerArray(const std::string& key) const {
  const GgufArray& a = asArray(path(), key, required(*this, key));
  std::vector<int64_t> out;
  out.reserve(a.elements.size());
  for (const GgufValue& e : a.elements) out.push_back(asInteger(path(), key, e));
  return out;
}

const GgufTensorInfo* GgufFile::findTensor(const std::string& name) const {
  const auto it = m_tensorIndex.find(name);
  return it == m_tensorIndex.end() ? nullptr : &m_tensors[it->second];
}

std::span<const std::byte> GgufFile::tensorData(const GgufTensorInfo& tensor) const {
  return m_file.bytes().subspan(tensor.offset, tensor.byteSize);
}

bool looksLikeGguf(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  char magic[4] = {};
  return in.read(magic, 4) && std::memcmp(magic, "GGUF", 4) == 0;
}

}  // namespace strata::io
