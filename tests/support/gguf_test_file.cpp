#include "support/gguf_test_file.h"

#include <cstring>
#include <fstream>
#include <stdexcept>

namespace strata::testing {
namespace {

io::GgufValue scalar(io::GgufValueType type, uint64_t value) { return {type, value}; }
io::GgufValue signedScalar(io::GgufValueType type, int64_t value) { return {type, value}; }

// Little-endian, whatever the host (all supported hosts are little-endian, but the format is
// defined byte by byte, so the writer is too).
void putUnsigned(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out += static_cast<char>((value >> (8 * i)) & 0xFF);
}

void putString(std::string& out, const std::string& s) {
  putUnsigned(out, s.size(), 8);
  out += s;
}

uint64_t bitsOf(const io::GgufValue& v) {
  if (const auto* u = std::get_if<uint64_t>(&v.value)) return *u;
  if (const auto* s = std::get_if<int64_t>(&v.value)) return static_cast<uint64_t>(*s);
  if (const auto* b = std::get_if<bool>(&v.value)) return *b ? 1 : 0;
  if (const auto* d = std::get_if<double>(&v.value)) return static_cast<uint64_t>(*d);
  throw std::invalid_argument("GgufTestFile: a " + io::ggufValueTypeName(v.type) +
                              " value must hold a number");
}

double numberOf(const io::GgufValue& v) {
  if (const auto* d = std::get_if<double>(&v.value)) return *d;
  if (const auto* u = std::get_if<uint64_t>(&v.value)) return static_cast<double>(*u);
  if (const auto* s = std::get_if<int64_t>(&v.value)) return static_cast<double>(*s);
  throw std::invalid_argument("GgufTestFile: a float value must hold a number");
}

// The value without its type tag: what follows the tag in a key-value pair, and what an array
// holds per element.
void putPayload(std::string& out, io::GgufValueType type, const io::GgufValue& v) {
  switch (type) {
    case io::GgufValueType::UInt8:
    case io::GgufValueType::Int8:
    case io::GgufValueType::Bool:
      return putUnsigned(out, bitsOf(v), 1);
    case io::GgufValueType::UInt16:
    case io::GgufValueType::Int16:
      return putUnsigned(out, bitsOf(v), 2);
    case io::GgufValueType::UInt32:
    case io::GgufValueType::Int32:
      return putUnsigned(out, bitsOf(v), 4);
    case io::GgufValueType::UInt64:
    case io::GgufValueType::Int64:
      return putUnsigned(out, bitsOf(v), 8);
    case io::GgufValueType::Float32: {
      const auto f = static_cast<float>(numberOf(v));
      uint32_t bits = 0;
      std::memcpy(&bits, &f, sizeof bits);
      return putUnsigned(out, bits, 4);
    }
    case io::GgufValueType::Float64: {
      const double d = numberOf(v);
      uint64_t bits = 0;
      std::memcpy(&bits, &d, sizeof bits);
      return putUnsigned(out, bits, 8);
    }
    case io::GgufValueType::String:
      return putString(out, std::get<std::string>(v.value));
    case io::GgufValueType::Array: {
      const io::GgufArray& array = *std::get<std::shared_ptr<const io::GgufArray>>(v.value);
      putUnsigned(out, static_cast<uint32_t>(array.elementType), 4);
      putUnsigned(out, array.elements.size(), 8);
      for (const io::GgufValue& element : array.elements)
        putPayload(out, array.elementType, element);
      return;
    }
  }
  // An out-of-range type (a test writing a bad tag) has no payload to write.
}

uint64_t alignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

}  // namespace

io::GgufValue ggufUInt8(uint8_t value) { return scalar(io::GgufValueType::UInt8, value); }
io::GgufValue ggufInt8(int8_t value) { return signedScalar(io::GgufValueType::Int8, value); }
io::GgufValue ggufUInt16(uint16_t value) { return scalar(io::GgufValueType::UInt16, value); }
io::GgufValue ggufInt16(int16_t value) { return signedScalar(io::GgufValueType::Int16, value); }
io::GgufValue ggufUInt32(uint32_t value) { return scalar(io::GgufValueType::UInt32, value); }
io::GgufValue ggufInt32(int32_t value) { return signedScalar(io::GgufValueType::Int32, value); }
io::GgufValue ggufUInt64(uint64_t value) { return scalar(io::GgufValueType::UInt64, value); }
io::GgufValue ggufInt64(int64_t value) { return signedScalar(io::GgufValueType::Int64, value); }
io::GgufValue ggufFloat32(float value) {
  return {io::GgufValueType::Float32, static_cast<double>(value)};
}
io::GgufValue ggufFloat64(double value) { return {io::GgufValueType::Float64, value}; }
io::GgufValue ggufBool(bool value) { return {io::GgufValueType::Bool, value}; }
io::GgufValue ggufString(std::string value) {
  return {io::GgufValueType::String, std::move(value)};
}

io::GgufValue ggufArray(io::GgufValueType elementType, std::vector<io::GgufValue> elements) {
  auto array = std::make_shared<io::GgufArray>();
  array->elementType = elementType;
  array->elements = std::move(elements);
  return {io::GgufValueType::Array, std::shared_ptr<const io::GgufArray>(std::move(array))};
}

io::GgufValue ggufStringArray(const std::vector<std::string>& values) {
  std::vector<io::GgufValue> elements;
  for (const std::string& v : values) elements.push_back(ggufString(v));
  return ggufArray(io::GgufValueType::String, std::move(elements));
}

io::GgufValue ggufInt32Array(const std::vector<int32_t>& values) {
  std::vector<io::GgufValue> elements;
  for (const int32_t v : values) elements.push_back(ggufInt32(v));
  return ggufArray(io::GgufValueType::Int32, std::move(elements));
}

io::GgufValue ggufFloat32Array(const std::vector<float>& values) {
  std::vector<io::GgufValue> elements;
  for (const float v : values) elements.push_back(ggufFloat32(v));
  return ggufArray(io::GgufValueType::Float32, std::move(elements));
}

GgufTestFile& GgufTestFile::setVersion(uint32_t version) {
  m_version = version;
  return *this;
}

GgufTestFile& GgufTestFile::set(const std::string& key, io::GgufValue value) {
  for (auto& [existing, v] : m_metadata)
    if (existing == key) {
      v = std::move(value);
      return *this;
    }
  m_metadata.emplace_back(key, std::move(value));
  return *this;
}

GgufTestFile& GgufTestFile::addTensor(GgufTestTensor tensor) {
  m_tensors.push_back(std::move(tensor));
  return *this;
}

GgufTestFile& GgufTestFile::addF32Tensor(const std::string& name, std::vector<int64_t> dims,
                                         const std::vector<float>& values) {
  std::string data(values.size() * sizeof(float), '\0');
  std::memcpy(data.data(), values.data(), data.size());
  return addTensor({name, std::move(dims), 0, std::move(data), std::nullopt});
}

uint64_t GgufTestFile::alignment() const {
  // A test may set a malformed alignment (a string, zero) to see the reader refuse it; the
  // file is then laid out with the default.
  for (const auto& [key, v] : m_metadata)
    if (key == "general.alignment") {
      const auto* u = std::get_if<uint64_t>(&v.value);
      const auto* s = std::get_if<int64_t>(&v.value);
      if (u != nullptr && *u > 0) return *u;
      if (s != nullptr && *s > 0) return static_cast<uint64_t>(*s);
    }
  return 32;
}

std::string GgufTestFile::bytes() const {
  const uint64_t align = alignment();
  std::string out = "GGUF";
  putUnsigned(out, m_version, 4);
  putUnsigned(out, m_tensors.size(), 8);
  putUnsigned(out, m_metadata.size(), 8);
  for (const auto& [key, value] : m_metadata) {
    putString(out, key);
    putUnsigned(out, static_cast<uint32_t>(value.type), 4);
    putPayload(out, value.type, value);
  }
  // The bytes go where the default layout puts them; a stated offset changes the info only.
  std::vector<uint64_t> placed;
  uint64_t next = 0;
  for (const GgufTestTensor& t : m_tensors) {
    placed.push_back(alignUp(next, align));
    next = placed.back() + t.data.size();
    putString(out, t.name);
    putUnsigned(out, t.dims.size(), 4);
    for (const int64_t d : t.dims) putUnsigned(out, static_cast<uint64_t>(d), 8);
    putUnsigned(out, t.typeId, 4);
    putUnsigned(out, t.offset.value_or(placed.back()), 8);
  }
  // Like llama.cpp's and gguf-py's writers: padding after the infos even with no tensors.
  out.resize(alignUp(out.size(), align), '\0');
  const size_t dataStart = out.size();
  for (size_t i = 0; i < m_tensors.size(); ++i) {
    out.resize(dataStart + placed[i], '\0');
    out += m_tensors[i].data;
  }
  return out;
}

void GgufTestFile::write(const std::filesystem::path& file) const {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  const std::string content = bytes();
  if (!out.write(content.data(), static_cast<std::streamsize>(content.size())))
    throw std::runtime_error("GgufTestFile: cannot write " + file.string());
}

}  // namespace strata::testing
