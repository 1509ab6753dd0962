// metrics.jsonl (engine/metrics_log.h) and TensorBoard event files (engine/tensorboard_writer.h).
// Event files are checked by tests/reference/tensorboard_reader.py, an independent standard-
// library reader that verifies every CRC and decodes the protobuf fields by wire type.

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/text_file.h"
#include "engine/metrics_log.h"
#include "engine/tensorboard_writer.h"
#include "support/python_finder.h"
#include "support/temp_dir.h"

namespace strata::engine {

namespace {
namespace fs = std::filesystem;

MetricsRecord makeRecord(int64_t step, std::vector<std::pair<std::string, double>> values) {
  return {step, 1.7e9 + 0.25 * static_cast<double>(step), std::move(values)};
}

void appendText(const fs::path& file, const std::string& text) {
  std::ofstream(file, std::ios::binary | std::ios::app) << text;
}

std::vector<int64_t> steps(const std::vector<MetricsRecord>& records) {
  std::vector<int64_t> out;
  for (const MetricsRecord& record : records) out.push_back(record.step);
  return out;
}

uint64_t inodeOf(const fs::path& file) {
  struct stat info {};
  EXPECT_EQ(::stat(file.c_str(), &info), 0);
  return info.st_ino;
}

std::vector<fs::path> eventFiles(const fs::path& folder) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(folder))
    if (entry.path().filename().string().rfind("events.out.tfevents.", 0) == 0)
      files.push_back(entry.path());
  return files;
}

TEST(MetricsLog, RoundTripsALineInLoggedOrder) {
  const MetricsRecord record = makeRecord(42, {{"loss", 2.5}, {"lr", 3e-4}, {"grad_norm", 0.1}});
  const std::string line = formatMetricsLine(record);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_EQ(line.rfind(R"({"step":42,"wall_time":)", 0), 0u) << line;
  const MetricsRecord back = parseMetricsLine(line);
  EXPECT_EQ(back.step, 42);
  EXPECT_EQ(back.wallTime, record.wallTime);
  EXPECT_EQ(back.values, record.values);
  EXPECT_EQ(back.value("lr"), 3e-4);
  EXPECT_TRUE(std::isnan(back.value("missing")));
}

TEST(MetricsLog, WritesNonFiniteValuesAsNullAndSkipsThemWhenParsing) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::string line =
      formatMetricsLine(makeRecord(1, {{"loss", std::nan("")}, {"ppl", inf}, {"lr", 1e-3}}));
  EXPECT_NE(line.find(R"("loss":null,"ppl":null,"lr":0.001)"), std::string::npos) << line;
  const MetricsRecord back = parseMetricsLine(line);
  EXPECT_FALSE(back.has("loss"));
  EXPECT_FALSE(back.has("ppl"));
  EXPECT_TRUE(back.has("lr"));
}

TEST(MetricsLog, ParsingSkipsNonNumericFieldsAndRejectsBadJson) {
  const MetricsRecord record =
      parseMetricsLine(R"({"step": 3, "wall_time": 5.5, "phase": "eval", "acc": 0.5, "x": null})");
  EXPECT_EQ(record.step, 3);
  EXPECT_EQ(record.wallTime, 5.5);
  ASSERT_EQ(record.values.size(), 1u);
  EXPECT_EQ(record.values[0].first, "acc");
  EXPECT_THROW(parseMetricsLine(R"({"step": 3, "lo)"), FormatError);
  EXPECT_THROW(parseMetricsLine(R"({"loss": 1})"), FormatError);
}

TEST(MetricsLog, WriterAppendsLinesThatTheReaderReplays) {
  TempDir dir;
  const fs::path file = dir / "metrics.jsonl";
  {
    MetricsLogWriter writer(file);
    for (int64_t step = 1; step <= 3; ++step) writer.append(makeRecord(step, {{"loss", 1.0}}));
  }
  MetricsLogWriter(file).append(makeRecord(4, {{"loss", 0.5}}));  // reopening appends
  const std::string text = readWholeFile(file);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 4);
  const auto records = readMetricsLog(file);
  EXPECT_EQ(steps(records), (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(records[3].value("loss"), 0.5);
  EXPECT_TRUE(readMetricsLog(dir / "absent.jsonl").empty());
}

TEST(MetricsLog, ReaderSkipsACutLastLineAndMalformedLines) {
  TempDir dir;
  const fs::path file = dir / "metrics.jsonl";
  appendText(file, formatMetricsLine(makeRecord(1, {{"loss", 1}})) + "\nnot json\n\n" +
                       formatMetricsLine(makeRecord(2, {{"loss", 1}})) + "\n" +
                       R"({"step": 3, "loss": 0.)");
  EXPECT_EQ(steps(readMetricsLog(file)), (std::vector<int64_t>{1, 2}));
}

TEST(MetricsLog, TruncationKeepsStepsUpToNByteForByteAndReplacesTheFile) {
  TempDir dir;
  const fs::path file = dir / "metrics.jsonl";
  std::string kept;
  for (int64_t step = 1; step <= 5; ++step) {
    const std::string line = formatMetricsLine(makeRecord(step, {{"loss", 1.0 / step}})) + "\n";
    if (step <= 3) kept += line;
    appendText(file, line);
  }
  appendText(file, R"({"step": 2, "lo)");  // a cut line is dropped, not kept
  const uint64_t before = inodeOf(file);
  std::ifstream oldReader(file);  // a reader holding the old file keeps seeing it whole

  truncateMetricsLog(file, 3);
  EXPECT_EQ(readWholeFile(file), kept);
  EXPECT_NE(inodeOf(file), before) << "rewritten in place, not renamed over";
  std::string firstOld;
  std::getline(oldReader, firstOld);
  EXPECT_EQ(parseMetricsLine(firstOld).step, 1);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1)
      << "a temporary file was left behind";

  truncateMetricsLog(dir / "absent.jsonl", 3);
  EXPECT_FALSE(fs::exists(dir / "absent.jsonl"));
}

TEST(MetricsTail, FollowsAGrowingFileAndHoldsAPartialLine) {
  TempDir dir;
  const fs::path file = dir / "metrics.jsonl";
  MetricsTail tail(file);
  EXPECT_TRUE(tail.readNew().empty());  // not written yet

  const std::string second = formatMetricsLine(makeRecord(2, {{"loss", 0.75}}));
  appendText(file, formatMetricsLine(makeRecord(1, {{"loss", 1}})) + "\n" + second.substr(0, 9));
  EXPECT_EQ(steps(tail.readNew()), (std::vector<int64_t>{1}));
  EXPECT_FALSE(tail.restarted());
  EXPECT_TRUE(tail.readNew().empty());

  appendText(file, second.substr(9) + "\ngarbage\n" +
                       formatMetricsLine(makeRecord(3, {{"loss", 0.5}})) + "\n");
  const auto records = tail.readNew();
  EXPECT_EQ(steps(records), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(records[0].value("loss"), 0.75);
  EXPECT_FALSE(tail.restarted());
}

TEST(MetricsTail, RestartsWhenTheFileIsReplacedOrShrinks) {
  TempDir dir;
  const fs::path file = dir / "metrics.jsonl";
  {
    MetricsLogWriter writer(file);
    for (int64_t step = 1; step <= 5; ++step) writer.append(makeRecord(step, {{"loss", 1}}));
  }
  MetricsTail tail(file);
  EXPECT_EQ(tail.readNew().size(), 5u);
  EXPECT_FALSE(tail.restarted());

  truncateMetricsLog(file, 2);  // a resume: same path, new inode, smaller
  EXPECT_EQ(steps(tail.readNew()), (std::vector<int64_t>{1, 2}));
  EXPECT_TRUE(tail.restarted());
  EXPECT_TRUE(tail.readNew().empty());
  EXPECT_FALSE(tail.restarted());

  fs::resize_file(file, readWholeFile(file).find('\n') + 1);  // shrunk in place: same inode
  EXPECT_EQ(steps(tail.readNew()), (std::vector<int64_t>{1}));
  EXPECT_TRUE(tail.restarted());
}

TEST(MetricsCsv, WritesOneColumnPerMetricInFirstSeenOrder) {
  TempDir dir;
  const std::vector<MetricsRecord> records = {
      {1, 1700000000.5, {{"loss", 2.5}, {"lr", 0.0001}}},
      {2, 1700000001.25, {{"lr", 0.0002}, {"eval,acc", 0.1}}},
      {3, 1700000002, {{"loss", std::nan("")}}},
  };
  writeMetricsCsv(records, dir / "metrics.csv");
  EXPECT_EQ(readWholeFile(dir / "metrics.csv"),
            "step,wall_time,loss,lr,\"eval,acc\"\n"
            "1,1700000000.5,2.5,0.0001,\n"
            "2,1700000001.25,,0.0002,0.1\n"
            "3,1700000002.0,nan,,\n");
}

TEST(TensorBoardWriter, Crc32cMatchesTheCheckValue) {
  EXPECT_EQ(crc32c("123456789", 9), 0xE3069283u);
  EXPECT_EQ(crc32c("", 0), 0u);
  EXPECT_EQ(maskedCrc32c("123456789", 9), 0xC78AB0E5u);  // ((c >> 15) | (c << 17)) + 0xa282ead8
}

class TensorBoardReference : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    m_python = testing::findPython({}, "install python3 or set STRATA_PYTHON", why);
    if (m_python.empty()) GTEST_SKIP() << "cannot run the reference reader: " << why;
  }

  // Runs the reference reader; returns its version events and scalars, one JSON each.
  std::vector<nlohmann::json> read(const fs::path& events, std::string& fileVersion) {
    const fs::path out = m_dir / "reader.jsonl";
    const std::string command = m_python +
                                " '" STRATA_SOURCE_DIR "/tests/reference/tensorboard_reader.py' '" +
                                events.string() + "' > '" + out.string() + "'";
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
    std::vector<nlohmann::json> scalars;
    std::ifstream in(out);
    for (std::string line; std::getline(in, line);) {
      auto json = nlohmann::json::parse(line);
      if (json.contains("file_version"))
        fileVersion += json["file_version"].get<std::string>();
      else
        scalars.push_back(std::move(json));
    }
    return scalars;
  }

  // Every value of `records`, in order, read back with float precision.
  void expectScalars(const std::vector<nlohmann::json>& got,
                     const std::vector<MetricsRecord>& records) {
    size_t i = 0;
    for (const MetricsRecord& record : records) {
      for (const auto& [tag, value] : record.values) {
        ASSERT_LT(i, got.size());
        EXPECT_EQ(got[i]["step"].get<int64_t>(), record.step) << i;
        EXPECT_EQ(got[i]["wall_time"].get<double>(), record.wallTime) << i;
        EXPECT_EQ(got[i]["tag"].get<std::string>(), tag) << i;
        EXPECT_EQ(got[i]["value"].get<double>(), static_cast<double>(static_cast<float>(value)))
            << tag << " at step " << record.step;
        ++i;
      }
    }
    EXPECT_EQ(i, got.size()) << "extra scalars";
  }

  TempDir m_dir;
  std::string m_python;
};

std::vector<MetricsRecord> sampleRecords() {
  std::vector<MetricsRecord> records;
  for (int64_t step : std::initializer_list<int64_t>{0, 1, 2, 127, 128, 300000,
                                                     5000000000})  // varints of 1 to 5 bytes
    records.push_back(makeRecord(step, {{"train/loss", 10.0 / (step + 1)},
                                        {"lr", 3e-4 * std::pow(0.5, step % 7)},
                                        {"grad_norm", -1.0 * step}}));
  records.push_back(makeRecord(9, {{std::string(200, 't'), 1e30}}));  // a 2-byte length
  return records;
}

TEST_F(TensorBoardReference, ReaderDecodesEveryScalarAndTheFileVersion) {
  const std::vector<MetricsRecord> records = sampleRecords();
  TensorBoardWriter writer(m_dir / "tb");
  EXPECT_EQ(writer.file().parent_path(), m_dir / "tb");
  EXPECT_EQ(writer.file().filename().string().rfind("events.out.tfevents.", 0), 0u);
  for (const MetricsRecord& record : records) writer.record(record);  // flushed: no close needed

  std::string fileVersion;
  const auto scalars = read(writer.file(), fileVersion);
  EXPECT_EQ(fileVersion, "brain.Event:2");
  expectScalars(scalars, records);
}

TEST_F(TensorBoardReference, NeverOverwritesAnEventFileOfTheSameSecond) {
  TensorBoardWriter first(m_dir / "tb");
  first.record(makeRecord(1, {{"loss", 1}}));
  TensorBoardWriter second(m_dir / "tb");
  EXPECT_NE(first.file(), second.file());
  std::string fileVersion;
  expectScalars(read(first.file(), fileVersion), {makeRecord(1, {{"loss", 1}})});
}

TEST_F(TensorBoardReference, RewriteLeavesOneEventFileWithTheGivenRecords) {
  const fs::path folder = m_dir / "tb";
  for (int i = 0; i < 2; ++i) TensorBoardWriter(folder).record(makeRecord(99, {{"old", 1}}));
  appendText(folder / "notes.txt", "kept");
  const std::vector<MetricsRecord> records = sampleRecords();

  TensorBoardWriter writer = rewriteTensorBoard(folder, records);
  ASSERT_EQ(eventFiles(folder), std::vector<fs::path>{writer.file()});
  EXPECT_TRUE(fs::exists(folder / "notes.txt"));
  std::string fileVersion;
  expectScalars(read(writer.file(), fileVersion), records);
  EXPECT_EQ(fileVersion, "brain.Event:2");

  std::vector<MetricsRecord> more = records;  // the returned writer keeps appending
  more.push_back(makeRecord(10, {{"loss", 0.125}}));
  writer.record(more.back());
  expectScalars(read(writer.file(), fileVersion), more);
}

}  // namespace
}  // namespace strata::engine
