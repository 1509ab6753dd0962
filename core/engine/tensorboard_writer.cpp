// TensorBoard event files (see tensorboard_writer.h): TFRecord framing with CRC-32C and the few
// protobuf fields of Event / Summary / Value that scalars need, encoded by hand.

#include "engine/tensorboard_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "common/error.h"
#include "common/provenance.h"

namespace strata::engine {

namespace fs = std::filesystem;

namespace {

// Reflected CRC-32C polynomial (Castagnoli), one table entry per byte value.
constexpr std::array<uint32_t, 256> kCrc32cTable = [] {
  std::array<uint32_t, 256> table{};
  for (uint32_t byte = 0; byte < 256; ++byte) {
    uint32_t crc = byte;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ ((crc & 1U) ? 0x82F63B78U : 0U);
    table[byte] = crc;
  }
  return table;
}();

constexpr const char* kFilePrefix = "events.out.tfevents.";

// --- protobuf wire format: key = field << 3 | wire type; integers little-endian ---
enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

void putVarint(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out += static_cast<char>((value & 0x7F) | 0x80);
    value >>= 7;
  }
  out += static_cast<char>(value);
}

void putKey(std::string& out, uint32_t field, WireType type) {
  putVarint(out, (field << 3) | type);
}

void putLittleEndian(std::string& out, uint64_t bits, int bytes) {
  for (int i = 0; i < bytes; ++i) out += static_cast<char>((bits >> (8 * i)) & 0xFF);
}

void putDouble(std::string& out, uint32_t field, double value) {
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  putKey(out, field, kFixed64);
  putLittleEndian(out, bits, 8);
}

void putFloat(std::string& out, uint32_t field, float value) {
  uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  putKey(out, field, kFixed32);
  putLittleEndian(out, bits, 4);
}

void putBytes(std::string& out, uint32_t field, const std::string& bytes) {
  putKey(out, field, kLengthDelimited);
  putVarint(out, bytes.size());
  out += bytes;
}

// Event: wall_time = 1 (double), step = 2 (int64), file_version = 3 (string), summary = 5.
std::string eventHeader(double wallTime, int64_t step) {
  std::string event;
  putDouble(event, 1, wallTime);
  putKey(event, 2, kVarint);
  putVarint(event, static_cast<uint64_t>(step));  // int64: negatives as 10-byte two's complement
  return event;
}

double secondsNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Claims a new file name with O_EXCL, so two writers started in the same second (or a rewrite
// right after a crash) never share or overwrite a file; later ones get ".1", ".2", ...
fs::path createEventFile(const fs::path& folder) {
  const auto seconds = static_cast<int64_t>(secondsNow());
  const std::string base = kFilePrefix + std::to_string(seconds) + "." + hostName("localhost");
  for (int suffix = 0;; ++suffix) {
    const fs::path file = folder / (suffix == 0 ? base : base + "." + std::to_string(suffix));
    const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      ::close(fd);
      return file;
    }
    if (errno != EEXIST) throw IoError(file, "cannot create: " + lastSystemError());
  }
}

}  // namespace

uint32_t crc32c(const void* data, size_t size) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  uint32_t crc = 0xFFFFFFFFU;
  for (size_t i = 0; i < size; ++i) crc = (crc >> 8) ^ kCrc32cTable[(crc ^ bytes[i]) & 0xFF];
  return crc ^ 0xFFFFFFFFU;
}

uint32_t maskedCrc32c(const void* data, size_t size) {
  const uint32_t crc = crc32c(data, size);
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8U;
}

TensorBoardWriter::TensorBoardWriter(const fs::path& folder) {
  std::error_code error;
  fs::create_directories(folder, error);
  if (error) throw IoError(folder, "cannot create the folder: " + error.message());
  m_file = createEventFile(folder);
  m_out.open(m_file, std::ios::binary | std::ios::app);
  if (!m_out) throw IoError(m_file, "cannot open for writing: " + lastSystemError());

  std::string event = eventHeader(secondsNow(), 0);
  putBytes(event, 3, "brain.Event:2");  // TensorBoard skips files whose first event lacks it
  writeEvent(event);
  flush();
}

void TensorBoardWriter::scalar(const std::string& tag, int64_t step, double wallTime,
                               double value) {
  std::string tagged;  // Value: tag = 1, simple_value = 2 (float)
  putBytes(tagged, 1, tag);
  putFloat(tagged, 2, static_cast<float>(value));
  std::string summary;  // Summary: repeated value = 1
  putBytes(summary, 1, tagged);
  std::string event = eventHeader(wallTime, step);
  putBytes(event, 5, summary);
  writeEvent(event);
}

void TensorBoardWriter::record(const MetricsRecord& record) {
  for (const auto& [name, value] : record.values) scalar(name, record.step, record.wallTime, value);
  flush();  // TensorBoard (or the GUI) reads the file while training runs
}

void TensorBoardWriter::flush() {
  m_out.flush();
  if (!m_out) throw IoError(m_file, "cannot write: " + lastSystemError());
}

// TFRecord framing: u64 length, masked CRC of those 8 bytes, data, masked CRC of the data.
void TensorBoardWriter::writeEvent(const std::string& event) {
  std::string frame;
  putLittleEndian(frame, event.size(), 8);
  putLittleEndian(frame, maskedCrc32c(frame.data(), 8), 4);
  frame += event;
  putLittleEndian(frame, maskedCrc32c(event.data(), event.size()), 4);
  m_out.write(frame.data(), static_cast<std::streamsize>(frame.size()));
  if (!m_out) throw IoError(m_file, "cannot write: " + lastSystemError());
}

TensorBoardWriter rewriteTensorBoard(const fs::path& folder,
                                     const std::vector<MetricsRecord>& records) {
  std::error_code error;
  if (fs::is_directory(folder, error)) {
    fs::directory_iterator entries(folder, error);
    if (error) throw IoError(folder, "cannot list: " + error.message());
    for (const fs::directory_entry& entry : entries) {
      if (entry.path().filename().string().rfind(kFilePrefix, 0) != 0) continue;
      if (!fs::remove(entry.path(), error) && error)
        throw IoError(entry.path(), "cannot remove the old event file: " + error.message());
    }
  }
  TensorBoardWriter writer(folder);
  for (const MetricsRecord& record : records)
    for (const auto& [name, value] : record.values)
      writer.scalar(name, record.step, record.wallTime, value);
  writer.flush();
  return writer;
}

}  // namespace strata::engine
