// MetricsFeed (engine/metrics_feed.h): one read of metrics.jsonl shared by every cursor.

#include "engine/metrics_feed.h"

#include <gtest/gtest.h>

#include <filesystem>
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

TEST(MetricsFeed, EachCursorReceivesEveryRecordOnceInFileOrder) {
  TempDir dir;
  const fs::path file = dir / "metrics.jsonl";
  MetricsFeed feed(file);
  MetricsFeed::Cursor early;
  EXPECT_TRUE(feed.read(early).records.empty());  // not written yet

  appendSteps(file, 1, 3);
  MetricsFeed::Update first = feed.read(early);
  EXPECT_EQ(steps(first.records), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_FALSE(first.restarted);

  appendSteps(file, 4, 5);
  MetricsFeed::Cursor late;  // a tab that starts following now gets the history too
  EXPECT_EQ(steps(feed.read(late).records), (std::vector<int64_t>{1, 2, 3, 4, 5}));
  EXPECT_EQ(steps(feed.read(early).records), (std::vector<int64_t>{4, 5}));
  EXPECT_TRUE(feed.read(early).records.empty());
  EXPECT_TRUE(feed.read(late).records.empty());
  EXPECT_DOUBLE_EQ(feed.records().back().value("loss"), 0.2);
}

TEST(MetricsFeed, AReaderThatStartsLateIsServedFromTheFeedNotTheFile) {
  TempDir dir;
  const fs::path file = dir / "metrics.jsonl";
  appendSteps(file, 1, 4);
  MetricsFeed feed(file);
  MetricsFeed::Cursor first;
  EXPECT_EQ(feed.read(first).records.size(), 4u);

  // The file is read once: with it gone, a new reader still receives what the feed read.
  fs::remove(file);
  MetricsFeed::Cursor second;
  const MetricsFeed::Update update = feed.read(second);
  EXPECT_EQ(steps(update.records), (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_FALSE(update.restarted);
}

TEST(MetricsFeed, ACutOrReplacedFileRestartsEveryReaderThatHadRead) {
  TempDir dir;
  const fs::path file = dir / "metrics.jsonl";
  appendSteps(file, 1, 6);
  MetricsFeed feed(file);
  MetricsFeed::Cursor a;
  MetricsFeed::Cursor b;
  EXPECT_EQ(feed.read(a).records.size(), 6u);
  EXPECT_EQ(feed.read(b).records.size(), 6u);

  truncateMetricsLog(file, 2);  // a resume from step 2: a new file in its place
  appendSteps(file, 3, 3);
  const MetricsFeed::Update afterCut = feed.read(a);
  EXPECT_TRUE(afterCut.restarted);
  EXPECT_EQ(steps(afterCut.records), (std::vector<int64_t>{1, 2, 3}));
  // b learns of the cut on its next read although a's read consumed it from the file.
  const MetricsFeed::Update later = feed.read(b);
  EXPECT_TRUE(later.restarted);
  EXPECT_EQ(steps(later.records), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_FALSE(feed.read(a).restarted);
  EXPECT_EQ(steps(feed.records()), (std::vector<int64_t>{1, 2, 3}));
}

TEST(MetricsFeed, AnUnreadableFileThrowsAndLeavesTheCursorWhereItWas) {
  TempDir dir;
  const fs::path file = dir / "metrics.jsonl";
  appendSteps(file, 1, 2);
  MetricsFeed feed(file);
  MetricsFeed::Cursor cursor;
  EXPECT_EQ(feed.read(cursor).records.size(), 2u);
  fs::remove(file);
  fs::create_directory(file);  // opens, but cannot be read as a file (even by root)
  const MetricsFeed::Cursor before = cursor;
  EXPECT_THROW(feed.read(cursor), IoError);
  EXPECT_EQ(cursor.next, before.next);
  EXPECT_EQ(cursor.generation, before.generation);
  EXPECT_EQ(feed.records().size(), 2u);
}

}  // namespace
}  // namespace strata::engine
