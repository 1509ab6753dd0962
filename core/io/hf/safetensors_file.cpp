#include "io/hf/safetensors_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>
#include <stdexcept>
#include <tuple>

#include "common/error.h"
#include "io/strict_json.h"

namespace strata::io {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// safetensors stores little-endian values; reading them in place needs a little-endian host.
static_assert(std::endian::native == std::endian::little, "big-endian hosts are not supported");

// The reference parser's limit: a larger header is a malformed (or hostile) file.
constexpr uint64_t kMaxHeaderLength = 100'000'000;

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

std::string rangeText(const TensorEntry& entry) {
  return "[" + std::to_string(entry.begin) + ", " + std::to_string(entry.end) + "]";
}

// Checks the 8-byte length prefix against the file size and returns N.
uint64_t checkHeaderLength(std::span<const std::byte> prefix, uint64_t fileSize,
                           const fs::path& file) {
  if (fileSize < 8)
    throw FormatError(file, "file is " + std::to_string(fileSize) +
                                " bytes, shorter than the 8-byte header length");
  uint64_t length = 0;
  for (int i = 7; i >= 0; --i) length = (length << 8) | static_cast<uint8_t>(prefix[i]);
  if (length > kMaxHeaderLength)
    throw FormatError(
        file, "header length " + std::to_string(length) + " exceeds the limit of 100000000 bytes");
  if (8 + length > fileSize)
    throw FormatError(file, "header length " + std::to_string(length) +
                                " runs past the end of the file (" + std::to_string(fileSize) +
                                " bytes)");
  return length;
}

// A duplicated tensor name must be an error, not silently one of the two (see strict_json.h).
json parseRejectingDuplicates(std::string_view text, const fs::path& file) {
  return parseJsonRejectingDuplicates(
      text, file, "header is not valid UTF-8 JSON: ", [&](const DuplicateKey& duplicate) {
        if (duplicate.parents.empty() && duplicate.key != "__metadata__")
          throw FormatError(file, "duplicate tensor name in header", duplicate.key);
        throw FormatError(
            file,
            "duplicate key \"" + duplicate.key + "\" in header" +
                (duplicate.parents.empty() ? "" : " entry of '" + duplicate.parents.front() + "'"));
      });
}

uint64_t checkedProduct(uint64_t a, uint64_t b, const fs::path& file, const std::string& name,
                        const std::vector<int64_t>& shape) {
  uint64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product))
    throw FormatError(file, "shape " + shapeText(shape) + " is too large (byte size overflows)",
                      name);
  return product;
}

TensorEntry parseEntry(const std::string& name, const json& value, uint64_t dataSize,
                       const fs::path& file) {
  if (!value.is_object())
    throw FormatError(file, "header entry is not an object {dtype, shape, data_offsets}", name);
  TensorEntry entry;
  entry.name = name;

  const auto dtype = value.find("dtype");
  if (dtype == value.end()) throw FormatError(file, "header entry has no \"dtype\"", name);
  if (!dtype->is_string()) throw FormatError(file, "\"dtype\" is not a string", name);
  const auto parsed = parseDType(dtype->get_ref<const std::string&>());
  if (!parsed)
    throw FormatError(file,
                      "unsupported dtype \"" + dtype->get<std::string>() +
                          "\" (supported: F64, F32, F16, BF16, I64, I32, I16, I8, U8, "
                          "BOOL; U16, U32, U64 and F8 types are not supported)",
                      name);
  entry.dtype = *parsed;

  const auto shape = value.find("shape");
  if (shape == value.end()) throw FormatError(file, "header entry has no \"shape\"", name);
  if (!shape->is_array()) throw FormatError(file, "\"shape\" is not an array", name);
  for (const auto& dim : *shape) {
    if (dim.is_number_integer() && !dim.is_number_unsigned())
      throw FormatError(file, "\"shape\" has a negative dimension " + dim.dump(), name);
    if (!dim.is_number_unsigned() || dim.get<uint64_t>() > uint64_t(INT64_MAX))
      throw FormatError(file, "\"shape\" must hold non-negative integers, not " + dim.dump(), name);
    entry.shape.push_back(dim.get<int64_t>());
  }

  const auto offsets = value.find("data_offsets");
  if (offsets == value.end()) throw FormatError(file, "header entry has no \"data_offsets\"", name);
  if (!offsets->is_array() || offsets->size() != 2 || !(*offsets)[0].is_number_unsigned() ||
      !(*offsets)[1].is_number_unsigned())
    throw FormatError(
        file, "\"data_offsets\" must be two unsigned integers [begin, end], not " + offsets->dump(),
        name);
  entry.begin = (*offsets)[0].get<uint64_t>();
  entry.end = (*offsets)[1].get<uint64_t>();
  if (entry.begin > entry.end)
    throw FormatError(file, "data_offsets " + rangeText(entry) + " are not ascending", name);

  const uint64_t expected =
      std::accumulate(entry.shape.begin(), entry.shape.end(), uint64_t{dtypeSize(entry.dtype)},
                      [&](uint64_t product, int64_t dim) {
                        return checkedProduct(product, dim, file, name, entry.shape);
                      });
  if (entry.end - entry.begin != expected)
    throw FormatError(file,
                      "data_offsets " + rangeText(entry) + " span " +
                          std::to_string(entry.end - entry.begin) + " bytes, but shape " +
                          shapeText(entry.shape) + " of " + std::string(dtypeName(entry.dtype)) +
                          " needs " + std::to_string(expected),
                      name);
  if (entry.end > dataSize)
    throw FormatError(file,
                      "data_offsets " + rangeText(entry) +
                          " run past the end of the data section (" + std::to_string(dataSize) +
                          " bytes)",
                      name);
  return entry;
}

std::map<std::string, std::string> parseMetadata(const json& value, const fs::path& file) {
  if (!value.is_object())
    throw FormatError(file, "\"__metadata__\" is not an object of string values");
  std::map<std::string, std::string> metadata;
  for (const auto& [key, item] : value.items()) {
    if (!item.is_string())
      throw FormatError(file, "\"__metadata__\" values must be strings, not " + item.dump(), key,
                        "metadata key");
    metadata[key] = item.get<std::string>();
  }
  return metadata;
}

// The data section must be tiled exactly: sorted by offset, no gap, no overlap, no tail.
void checkLayout(const std::vector<TensorEntry>& tensors, uint64_t dataSize, const fs::path& file) {
  uint64_t expectedBegin = 0;
  const TensorEntry* previous = nullptr;
  for (const TensorEntry& entry : tensors) {
    if (entry.begin < expectedBegin)
      throw FormatError(file,
                        "data_offsets " + rangeText(entry) + " overlap tensor '" + previous->name +
                            "' " + rangeText(*previous),
                        entry.name);
    if (entry.begin > expectedBegin)
      throw FormatError(file,
                        previous == nullptr
                            ? "gap: the first tensor starts at byte " +
                                  std::to_string(entry.begin) + " instead of 0"
                            : "gap of " + std::to_string(entry.begin - expectedBegin) +
                                  " unused bytes after tensor '" + previous->name + "'",
                        entry.name);
    expectedBegin = entry.end;
    previous = &entry;
  }
  if (expectedBegin != dataSize)
    throw FormatError(file, std::to_string(dataSize - expectedBegin) +
                                " trailing bytes after the last tensor (data section is " +
                                std::to_string(dataSize) + " bytes)");
}

SafetensorsHeaderInfo parseHeader(std::string_view text, uint64_t fileSize, const fs::path& file) {
  SafetensorsHeaderInfo info;
  info.path = file;
  info.fileSize = fileSize;
  info.headerLength = text.size();
  if (text.empty() || text.front() != '{')
    throw FormatError(file, "header does not start with '{' (not a safetensors file?)");
  const json header = parseRejectingDuplicates(text, file);
  if (!header.is_object()) throw FormatError(file, "header is not a JSON object");

  for (const auto& [name, value] : header.items()) {
    if (name == "__metadata__")
      info.metadata = parseMetadata(value, file);
    else
      info.tensors.push_back(parseEntry(name, value, info.dataSize(), file));
  }
  std::sort(info.tensors.begin(), info.tensors.end(), [](const auto& a, const auto& b) {
    return std::tie(a.begin, a.end, a.name) < std::tie(b.begin, b.end, b.name);
  });
  checkLayout(info.tensors, info.dataSize(), file);
  return info;
}

SafetensorsHeaderInfo parseInMemory(std::span<const std::byte> bytes, const fs::path& file) {
  const uint64_t length = checkHeaderLength(bytes, bytes.size(), file);
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()) + 8, length);
  return parseHeader(text, bytes.size(), file);
}

void preadExactly(int fd, void* buffer, std::size_t size, uint64_t offset, const fs::path& file) {
  auto* next = static_cast<char*>(buffer);
  while (size > 0) {
    const ssize_t got = ::pread(fd, next, size, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw IoError(file, "cannot read: " + lastSystemError());
    if (got == 0) throw IoError(file, "file shrank while its header was read");
    next += got;
    size -= static_cast<std::size_t>(got);
    offset += static_cast<uint64_t>(got);
  }
}

// A float is NaN or infinite exactly when all its exponent bits are set; checking the bits
// directly needs no conversion of F16 / BF16 to float.
template <typename Bits>
bool anyNonFinite(std::span<const std::byte> bytes, Bits exponentMask) {
  for (std::size_t i = 0; i + sizeof(Bits) <= bytes.size(); i += sizeof(Bits)) {
    Bits bits;
    std::memcpy(&bits, bytes.data() + i, sizeof(Bits));  // the data may be unaligned
    if ((bits & exponentMask) == exponentMask) return true;
  }
  return false;
}

}  // namespace

int64_t TensorEntry::numel() const {
  return std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>());
}

SafetensorsHeaderInfo readSafetensorsHeader(const fs::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw IoError(file, "cannot open for reading: " + lastSystemError());
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};

  struct stat status {};
  if (::fstat(fd, &status) != 0) throw IoError(file, "cannot stat: " + lastSystemError());
  if (!S_ISREG(status.st_mode)) throw IoError(file, "not a regular file");
  const auto fileSize = static_cast<uint64_t>(status.st_size);

  std::byte prefix[8] = {};
  if (fileSize >= 8) preadExactly(fd, prefix, 8, 0, file);
  const uint64_t length = checkHeaderLength(prefix, fileSize, file);
  std::string text(length, '\0');
  preadExactly(fd, text.data(), length, 8, file);
  return parseHeader(text, fileSize, file);
}

std::shared_ptr<const SafetensorsFile> SafetensorsFile::open(const fs::path& file) {
  std::shared_ptr<SafetensorsFile> result(new SafetensorsFile());
  result->m_mapping.emplace(file);
  const auto bytes = result->m_mapping->bytes();
  result->m_header = parseInMemory(bytes, file);
  result->m_data = bytes.subspan(result->m_header.dataOffset());
  result->index();
  return result;
}

std::shared_ptr<const SafetensorsFile> SafetensorsFile::fromBytes(std::vector<std::byte> bytes,
                                                                  fs::path nameForErrors) {
  std::shared_ptr<SafetensorsFile> result(new SafetensorsFile());
  result->m_owned = std::move(bytes);
  const std::span<const std::byte> view(result->m_owned);
  result->m_header = parseInMemory(view, nameForErrors);
  result->m_data = view.subspan(result->m_header.dataOffset());
  result->index();
  return result;
}

void SafetensorsFile::index() {
  for (std::size_t i = 0; i < m_header.tensors.size(); ++i)
    m_byName.emplace(m_header.tensors[i].name, i);
}

const TensorEntry* SafetensorsFile::find(std::string_view name) const {
  const auto found = m_byName.find(name);
  return found == m_byName.end() ? nullptr : &m_header.tensors[found->second];
}

const TensorEntry& SafetensorsFile::at(std::string_view name) const {
  if (const TensorEntry* entry = find(name)) return *entry;
  throw FormatError(path(), "no such tensor in this file", std::string(name));
}

std::span<const std::byte> SafetensorsFile::bytes(const TensorEntry& entry) const {
  if (entry.begin > entry.end || entry.end > m_data.size())
    throw std::out_of_range("tensor '" + entry.name + "' is not an entry of " + path().string());
  return m_data.subspan(entry.begin, entry.end - entry.begin);
}

std::vector<std::string> findNonFiniteTensors(const SafetensorsFile& file) {
  std::vector<std::string> names;
  for (const TensorEntry& entry : file.tensors()) {
    const auto bytes = file.bytes(entry);
    bool found = false;
    switch (entry.dtype) {
      case DType::F64:
        found = anyNonFinite<uint64_t>(bytes, 0x7FF0000000000000ULL);
        break;
      case DType::F32:
        found = anyNonFinite<uint32_t>(bytes, 0x7F800000U);
        break;
      case DType::F16:
        found = anyNonFinite<uint16_t>(bytes, 0x7C00U);
        break;
      case DType::BF16:
        found = anyNonFinite<uint16_t>(bytes, 0x7F80U);
        break;
      default:
        break;  // integers and booleans cannot be non-finite
    }
    if (found) names.push_back(entry.name);
  }
  return names;
}

}  // namespace strata::io
