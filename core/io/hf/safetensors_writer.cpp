#include "io/hf/safetensors_writer.h"

#include <array>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "io/atomic_file.h"

namespace strata::io {

namespace {

// Readers reject longer headers (see readSafetensorsHeader); never write one they refuse.
constexpr uint64_t kMaxHeaderLength = 100'000'000;

}  // namespace

void SafetensorsWriter::setMetadata(std::string key, std::string value) {
  m_metadata[std::move(key)] = std::move(value);
}

uint64_t SafetensorsWriter::checkEntry(const std::string& name, DType dtype,
                                       const std::vector<int64_t>& shape) const {
  if (name == "__metadata__")
    throw FormatError({}, "\"__metadata__\" is reserved and cannot name a tensor", name);
  if (m_names.contains(name)) throw FormatError({}, "tensor added twice to one file", name);

  uint64_t expected = dtypeSize(dtype);
  for (int64_t dim : shape) {
    if (dim < 0) throw FormatError({}, "negative dimension " + std::to_string(dim), name);
    if (__builtin_mul_overflow(expected, static_cast<uint64_t>(dim), &expected))
      throw FormatError({}, "shape is too large (byte size overflows)", name);
  }
  return expected;
}

void SafetensorsWriter::record(std::string name, DType dtype, std::vector<int64_t> shape,
                               uint64_t bytes) {
  TensorEntry entry{name, dtype, std::move(shape), m_dataSize, m_dataSize + bytes};
  m_dataSize = entry.end;
  m_names.insert(std::move(name));
  m_entries.push_back(std::move(entry));
}

void SafetensorsWriter::add(std::string name, DType dtype, std::vector<int64_t> shape,
                            std::span<const std::byte> data) {
  const uint64_t expected = checkEntry(name, dtype, shape);
  if (data.size() != expected)
    throw FormatError({},
                      "data is " + std::to_string(data.size()) + " bytes, but the shape and " +
                          std::string(dtypeName(dtype)) + " need " + std::to_string(expected),
                      name);
  record(std::move(name), dtype, std::move(shape), expected);
  m_data.push_back(data);
  m_producers.emplace_back();
}

void SafetensorsWriter::addProduced(std::string name, DType dtype, std::vector<int64_t> shape,
                                    Producer produce) {
  const uint64_t expected = checkEntry(name, dtype, shape);
  record(std::move(name), dtype, std::move(shape), expected);
  m_data.emplace_back();
  m_producers.push_back(std::move(produce));
}

void SafetensorsWriter::write(const std::filesystem::path& target) const {
  // ordered_json keeps __metadata__ first and the tensors in layout order, as people expect
  // when they read a header by eye; readers do not depend on it.
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!m_metadata.empty()) {
    auto& metadata = header["__metadata__"] = nlohmann::ordered_json::object();
    for (const auto& [key, value] : m_metadata) metadata[key] = value;
  }
  for (const TensorEntry& entry : m_entries)
    header[entry.name] = {{"dtype", dtypeName(entry.dtype)},
                          {"shape", entry.shape},
                          {"data_offsets", {entry.begin, entry.end}}};

  std::string text;
  try {
    text = header.dump();
  } catch (const nlohmann::json::exception& e) {
    throw FormatError(target,
                      std::string("tensor names and metadata must be valid UTF-8: ") + e.what());
  }
  text.append((8 - text.size() % 8) % 8, ' ');  // the data section starts 8-aligned
  if (text.size() > kMaxHeaderLength)
    throw FormatError(target, "header would be " + std::to_string(text.size()) +
                                  " bytes, over the 100000000-byte limit readers enforce");

  std::array<unsigned char, 8> length{};
  for (std::size_t i = 0; i < 8; ++i)
    length[i] = static_cast<unsigned char>(text.size() >> (8 * i));

  writeFileAtomically(target, [&](int fd) {
    writeAll(fd, length.data(), length.size(), target);
    writeAll(fd, text.data(), text.size(), target);
    for (std::size_t i = 0; i < m_entries.size(); ++i) {
      if (!m_producers[i]) {
        writeAll(fd, m_data[i].data(), m_data[i].size(), target);
        continue;
      }
      const TensorEntry& entry = m_entries[i];
      const uint64_t expected = entry.end - entry.begin;
      uint64_t written = 0;
      m_producers[i]([&](std::span<const std::byte> piece) {
        if (piece.size() > expected - written)
          throw FormatError(target, "more bytes were produced than the tensor holds", entry.name);
        writeAll(fd, piece.data(), piece.size(), target);
        written += piece.size();
      });
      if (written != expected)
        throw FormatError(target,
                          std::to_string(written) + " bytes were produced where the tensor holds " +
                              std::to_string(expected),
                          entry.name);
    }
  });
}

}  // namespace strata::io
