// metrics.jsonl (see metrics_log.h): formatting and parsing one line, replaying, truncating on
// resume, appending, tailing a live file, and the CSV export.

#include "engine/metrics_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string_view>

#include "common/error.h"
#include "common/text_file.h"
#include "io/atomic_file.h"

namespace strata::engine {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

constexpr const char* kStep = "step";
constexpr const char* kWallTime = "wall_time";

// Calls `onLine` for each '\n'-terminated line of `text` and returns what follows the last
// newline (a line still being written, or cut by a crash).
template <typename OnLine>
std::string_view forEachCompleteLine(std::string_view text, OnLine onLine) {
  size_t start = 0;
  for (size_t end; (end = text.find('\n', start)) != std::string_view::npos; start = end + 1)
    onLine(text.substr(start, end - start));
  return text.substr(start);
}

// A line that does not parse (a crash, a hand edit) is skipped rather than fatal: the log is a
// record for people and plots, and one bad line must not hide the rest.
bool tryParse(std::string_view line, MetricsRecord& record) {
  if (line.find_first_not_of(" \t\r") == std::string_view::npos) return false;
  try {
    record = parseMetricsLine(std::string(line));
    return true;
  } catch (const FormatError&) {
    return false;
  }
}

// The shortest text that reads back as the same double, written as in metrics.jsonl (fixed
// notation for ordinary magnitudes: 0.0001, 1700000000.0; exponents only beyond them).
std::string formatNumber(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return Json(value).dump();
}

// RFC 4180: a cell with a comma, quote or line break is quoted, inner quotes doubled.
std::string csvCell(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

}  // namespace

double MetricsRecord::value(const std::string& name) const {
  for (const auto& [key, v] : values)
    if (key == name) return v;
  return std::numeric_limits<double>::quiet_NaN();
}

bool MetricsRecord::has(const std::string& name) const {
  for (const auto& entry : values)
    if (entry.first == name) return true;
  return false;
}

MetricsRecord parseMetricsLine(const std::string& line) {
  Json json;
  try {
    json = Json::parse(line);
  } catch (const nlohmann::json::exception& e) {
    throw FormatError({}, std::string("metrics line is not valid JSON: ") + e.what());
  }
  if (!json.is_object()) throw FormatError({}, "metrics line is not a JSON object");
  const auto step = json.find(kStep);
  if (step == json.end() || !step->is_number() ||
      (step->is_number_float() && step->get<double>() != std::floor(step->get<double>())))
    throw FormatError({}, "metrics line has no integer \"step\"");

  MetricsRecord record;
  record.step =
      step->is_number_float() ? static_cast<int64_t>(step->get<double>()) : step->get<int64_t>();
  for (const auto& [key, value] : json.items()) {
    if (key == kStep || !value.is_number()) continue;  // null (non-finite), strings, flags
    if (key == kWallTime)
      record.wallTime = value.get<double>();
    else
      record.values.emplace_back(key, value.get<double>());
  }
  return record;
}

std::string formatMetricsLine(const MetricsRecord& record) {
  Json json = Json::object();
  json[kStep] = record.step;
  json[kWallTime] = record.wallTime;
  for (const auto& [name, value] : record.values) {
    // A metric named like a reserved key would overwrite it and make the line unreadable.
    if (name == kStep || name == kWallTime)
      throw Error("metric name \"" + name + "\" is reserved in metrics.jsonl");
    if (std::isfinite(value))
      json[name] = value;
    else
      json[name] = nullptr;  // JSON has no NaN or infinity
  }
  return json.dump();
}

std::vector<MetricsRecord> readMetricsLog(const fs::path& file) {
  std::vector<MetricsRecord> records;
  if (!fs::exists(file)) return records;
  const std::string text = readWholeFile(file);
  const std::string_view rest = forEachCompleteLine(text, [&](std::string_view line) {
    if (MetricsRecord record; tryParse(line, record)) records.push_back(std::move(record));
  });
  // A last line without its newline is kept only when it parses: the crash then came between
  // the closing brace and the newline, and nothing is lost.
  if (MetricsRecord record; tryParse(rest, record)) records.push_back(std::move(record));
  return records;
}

void truncateMetricsLog(const fs::path& file, int64_t step) {
  if (!fs::exists(file)) return;
  const std::string text = readWholeFile(file);
  std::string kept;
  auto keep = [&](std::string_view line) {
    // The kept lines are copied byte for byte, not re-formatted.
    if (MetricsRecord record; tryParse(line, record) && record.step <= step)
      kept.append(line).append("\n");
  };
  keep(forEachCompleteLine(text, keep));
  io::writeFileAtomically(file, [&](int fd) { io::writeAll(fd, kept.data(), kept.size(), file); });
}

MetricsLogWriter::MetricsLogWriter(const fs::path& file)
    : m_file(file), m_out(file, std::ios::binary | std::ios::app) {
  if (!m_out) throw IoError(m_file, "cannot open for appending: " + lastSystemError());
}

void MetricsLogWriter::append(const MetricsRecord& record) {
  m_out << formatMetricsLine(record) << '\n';
  m_out.flush();  // a live reader (MetricsTail) sees the line now
  if (!m_out) throw IoError(m_file, "cannot append: " + lastSystemError());
}

MetricsTail::MetricsTail(fs::path file) : m_file(std::move(file)) {}

std::vector<MetricsRecord> MetricsTail::readNew() {
  m_restarted = false;
  std::vector<MetricsRecord> records;
  // open + fstat (not stat + open): the size and inode then belong to the file we read, even
  // when a resume renames a new one over the path in between.
  const int fd = ::open(m_file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return records;  // not written yet; atomic rewrites never remove it
    throw IoError(m_file, "cannot open for reading: " + lastSystemError());
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat info {};
  if (::fstat(fd, &info) != 0) throw IoError(m_file, "cannot stat: " + lastSystemError());

  const auto inode = static_cast<uint64_t>(info.st_ino);
  const auto size = static_cast<uint64_t>(info.st_size);
  if (m_inode != 0 && (inode != m_inode || size < m_offset)) {
    m_offset = 0;
    m_partial.clear();
    m_restarted = true;
  }
  m_inode = inode;

  // Read up to the size fstat saw; bytes appended meanwhile wait for the next call.
  std::string text = std::move(m_partial);
  const size_t kept = text.size();
  text.resize(kept + (size - m_offset));
  size_t got = kept;
  while (got < text.size()) {
    const ssize_t n = ::pread(fd, text.data() + got, text.size() - got,
                              static_cast<off_t>(m_offset + (got - kept)));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw IoError(m_file, "cannot read: " + lastSystemError());
    if (n == 0) break;  // shrunk between fstat and read: the next call restarts
    got += static_cast<size_t>(n);
  }
  text.resize(got);
  m_offset += got - kept;

  m_partial = std::string(forEachCompleteLine(text, [&](std::string_view line) {
    if (MetricsRecord record; tryParse(line, record)) records.push_back(std::move(record));
  }));
  return records;
}

void writeMetricsCsv(const std::vector<MetricsRecord>& records, const fs::path& file) {
  std::vector<std::string> names;
  for (const MetricsRecord& record : records)
    for (const auto& entry : record.values)
      if (std::find(names.begin(), names.end(), entry.first) == names.end())
        names.push_back(entry.first);

  // Appended piece by piece: operator+ chains trip a false GCC 12 -Wrestrict warning.
  std::string csv = "step,wall_time";
  for (const std::string& name : names) csv.append(",").append(csvCell(name));
  csv += '\n';
  for (const MetricsRecord& record : records) {
    csv.append(std::to_string(record.step)).append(",").append(formatNumber(record.wallTime));
    for (const std::string& name : names) {
      csv += ',';
      if (record.has(name)) csv.append(formatNumber(record.value(name)));
    }
    csv += '\n';
  }
  io::writeFileAtomically(file, [&](int fd) { io::writeAll(fd, csv.data(), csv.size(), file); });
}

}  // namespace strata::engine
