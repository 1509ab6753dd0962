// MetricsFeed (engine/metrics_feed.h): one read of metrics.jsonl shared by its readers, with
// memory bounded by what they still have not received.

#include "engine/metrics_feed.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/error.h"
#include "engine/metrics_log.h"
#include "support/temp_dir.h"

namespace strata::engine {
namespace {

namespace fs = std::filesystem;

void appendSteps(const fs::path& file, int64_t first, int64_t last) {
  MetricsLogWriter writer(file);
  for (int64_t step = first; step <= last; ++step)
    writer.append(
        {step, 1.7e9 + static_cast<double>(step), {{"loss", 1.0 / static_cast<double>(step)}}});
}

std::vector<int64_t> steps(const std::vector<MetricsRecord>& records) {
  std::vector<int64_t> out;
  for (const MetricsRecord& record : records) out.push_back(record.step);
  return out;
}

std::vector<int64_t> range(int64_t first, int64_t last) {
  std::vector<int64_t> out;
  for (int64_t step = first; step <= last; ++step) out.push_back(step);
  return out;
}

TEST(MetricsFeed, EachReaderReceivesEveryRecordOnceInFileOrder) {
  TempDir dir;
  const fs::path file = dir / "metrics.jsonl";
  MetricsFeed feed(file);
  const MetricsFeed::Reader early = feed.join();
  EXPECT_TRUE(feed.read(early).records.empty());  // not written yet

  appendSteps(file, 1, 3);
  const MetricsFeed::Update first = feed.read(early);
  EXPECT_EQ(steps(first.records), range(1, 3));
  EXPECT_FALSE(first.restarted);
  EXPECT_EQ(first.records.back().value("loss"), 1.0 / 3);

  appendSteps(file, 4, 5);
  const MetricsFeed::Reader late = feed.join();  // a tab that starts following now
  EXPECT_EQ(steps(feed.read(late).records), range(1, 5));
  EXPECT_EQ(steps(feed.read(early).records), range(4, 5));
  EXPECT_TRUE(feed.read(early).records.empty());
  EXPECT_TRUE(feed.read(late).records.empty());
  EXPECT_FALSE(feed.read(early).restarted);
}

TEST(MetricsFeed, HoldsOnlyWhatAReaderHasNotReceived) {
  TempDir dir;
  const fs::path file = dir / "metrics.jsonl";
  appendSteps(file, 1, 100);
  MetricsFeed feed(file);
  const MetricsFeed::Reader a = feed.join();
  const MetricsFeed::Reader b = feed.join();
  EXPECT_EQ(feed.read(a).records.size(), 100u);
  EXPECT_EQ(feed.heldRecords(), 100u);  // owed to b, which joined but has not read
  EXPECT_EQ(feed.read(b).records.size(), 100u);
  EXPECT_EQ(feed.heldRecords(), 0u);  // both have everything: nothing is kept

  appendSteps(file, 101, 110);
  EXPECT_EQ(steps(feed.read(a).records), range(101, 110));
  EXPECT_EQ(feed.heldRecords(), 10u);
  // The file is read once: with it gone, b is served what a's read found.
  fs::remove(file);
  EXPECT_EQ(steps(feed.read(b).records), range(101, 110));
  EXPECT_EQ(feed.heldRecords(), 0u);
  feed.leave(b);
  EXPECT_TRUE(feed.read(a).records.empty());
}

TEST(MetricsFeed, AReaderFarBehindCatchesUpFromTheFileAndMemoryStaysBounded) {
  TempDir dir;
  const fs::path file = dir / "metrics.jsonl";
  MetricsFeed feed(file, /*maxHeld=*/8);
  const MetricsFeed::Reader shown = feed.join();
  const MetricsFeed::Reader hidden = feed.join();  // a tab in the background
  appendSteps(file, 1, 5);
  EXPECT_EQ(feed.read(shown).records.size(), 5u);
  EXPECT_EQ(feed.read(hidden).records.size(), 5u);
  for (int64_t step = 6; step <= 60; step += 5) {  // the hidden tab reads nothing meanwhile
    appendSteps(file, step, step + 4);
    EXPECT_EQ(steps(feed.read(shown).records), range(step, step + 4));
    EXPECT_LE(feed.heldRecords(), 8u);
  }
  // Shown again: exactly what it missed, in order, though most was dropped here.
  const MetricsFeed::Update update = feed.read(hidden);
  EXPECT_FALSE(update.restarted);
  EXPECT_EQ(steps(update.records), range(6, 60));
  appendSteps(file, 61, 62);
  EXPECT_EQ(steps(feed.read(hidden).records), range(61, 62));
  EXPECT_EQ(steps(feed.read(shown).records), range(61, 62));

  // A reader joining after the history was dropped reads it from the file, without
  // disturbing the others.
  const MetricsFeed::Reader late = feed.join();
  EXPECT_EQ(steps(feed.read(late).records), range(1, 62));
  appendSteps(file, 63, 63);
  EXPECT_EQ(steps(feed.read(late).records), range(63, 63));
  const MetricsFeed::Update shownAgain = feed.read(shown);
  EXPECT_FALSE(shownAgain.restarted);
  EXPECT_EQ(steps(shownAgain.records), range(63, 63));
}

TEST(MetricsFeed, AReaderThatCaughtUpFromTheFileContinuesFromTheFeed) {
  TempDir dir;
  const fs::path file = dir / "metrics.jsonl";
  MetricsFeed feed(file, /*maxHeld=*/2);
  const MetricsFeed::Reader a = feed.join();
  appendSteps(file, 1, 10);
  EXPECT_EQ(feed.read(a).records.size(), 10u);
  const MetricsFeed::Reader b = feed.join();  // history dropped: b reads the file itself
  EXPECT_EQ(steps(feed.read(b).records), range(1, 10));
  appendSteps(file, 11, 12);
  EXPECT_EQ(steps(feed.read(b).records), range(11, 12));
  EXPECT_EQ(steps(feed.read(a).records), range(11, 12));
  EXPECT_TRUE(feed.read(b).records.empty());
}

TEST(MetricsFeed, ACutOrReplacedFileRestartsEveryReaderThatHadRead) {
  TempDir dir;
  const fs::path file = dir / "metrics.jsonl";
  appendSteps(file, 1, 6);
  MetricsFeed feed(file);
  const MetricsFeed::Reader a = feed.join();
  const MetricsFeed::Reader b = feed.join();
  EXPECT_EQ(feed.read(a).records.size(), 6u);
  EXPECT_EQ(feed.read(b).records.size(), 6u);

  truncateMetricsLog(file, 2);  // a resume from step 2: a new file in its place
  appendSteps(file, 3, 3);
  const MetricsFeed::Update afterCut = feed.read(a);
  EXPECT_TRUE(afterCut.restarted);
  EXPECT_EQ(steps(afterCut.records), range(1, 3));
  // b learns of the cut on its next read although a's read found it in the file.
  const MetricsFeed::Update later = feed.read(b);
  EXPECT_TRUE(later.restarted);
  EXPECT_EQ(steps(later.records), range(1, 3));
  EXPECT_FALSE(feed.read(a).restarted);
  appendSteps(file, 4, 4);
  EXPECT_EQ(steps(feed.read(b).records), range(4, 4));
}

TEST(MetricsFeed, AnUnreadableFileThrowsOnEveryRead) {
  TempDir dir;
  const fs::path file = dir / "metrics.jsonl";
  appendSteps(file, 1, 2);
  MetricsFeed feed(file);
  const MetricsFeed::Reader reader = feed.join();
  EXPECT_EQ(feed.read(reader).records.size(), 2u);
  fs::remove(file);
  fs::create_directory(file);  // opens, but cannot be read as a file (even by root)
  EXPECT_THROW(feed.read(reader), IoError);
  EXPECT_THROW(feed.read(reader), IoError);  // each read says so; the reader is still joined
  EXPECT_THROW(feed.read(reader + 100), std::out_of_range);  // never joined
}

}  // namespace
}  // namespace strata::engine
