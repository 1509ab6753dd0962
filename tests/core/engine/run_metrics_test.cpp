// What a run logged (core/engine/run_metrics.h), read through its folder (engine/run_folder.h).

#include "engine/run_metrics.h"

#include <gtest/gtest.h>

#include <cmath>

#include "common/error.h"
#include "engine/run_folder.h"
#include "support/temp_dir.h"

namespace strata::engine {

namespace {

MetricsRecord logged(int64_t step, double wall, double tokensPerSecond) {
  return {step, wall, {{"loss", 1.0}, {"tokens_per_s", tokensPerSecond}}};
}

TEST(RunMetrics, TrainingSecondsLeaveOutTheTimeARunWasStopped) {
  // 10 tokens per step at 100 tokens/s: every 10-step interval takes 1 s. The run stops after
  // step 30 and resumes 97 s later; the interval ending at step 40 still took 1 s of training.
  const std::vector<MetricsRecord> records = {logged(10, 1, 100),
                                              logged(20, 2, 100),
                                              logged(30, 3, 100),
                                              {30, 3.5, {{"val_loss", 2.0}}},
                                              logged(40, 100, 100)};
  EXPECT_NEAR(trainingSeconds(records), 4.0, 1e-9);
}

TEST(RunMetrics, SeriesBestAndLast) {
  const std::vector<MetricsRecord> records = {{10, 0, {{"val_loss", 3.0}}},
                                              {20, 0, {{"loss", 9.0}}},
                                              {30, 0, {{"val_loss", 2.0}}},
                                              {40, 0, {{"val_loss", 2.5}}}};
  const LoggedSeries val = loggedSeries(records, "val_loss");
  ASSERT_EQ(val.size(), 3u);
  EXPECT_EQ(val[1].first, 30);
  EXPECT_DOUBLE_EQ(minimumOf(val), 2.0);
  EXPECT_DOUBLE_EQ(lastOf(val), 2.5);
  EXPECT_TRUE(std::isnan(lastOf({})));
  EXPECT_TRUE(std::isnan(trainingSeconds({logged(10, 1, 100)})));  // one interval: no rate
}

TEST(RunMetrics, ARunFolderReadsItsLogIntoSeries) {
  TempDir dir;
  const RunFolder run(dir / "run");
  createRunFolder(run.path());
  EXPECT_EQ(run.metricsFile(), dir / "run" / "metrics.jsonl");
  EXPECT_EQ(run.checkpointsFolder(), dir / "run" / "checkpoints");
  {
    MetricsLogWriter log(run.metricsFile());
    log.append({10, 0, {{"loss", 3.0}, {"tokens_per_s", 100}}});
    log.append({10, 0, {{"val_loss", 2.5}, {"val_cosine", 0.5}}});
    log.append({20, 0, {{"loss", 2.0}, {"tokens_per_s", 300}}});
    log.append({20, 0, {{"val_loss", 2.75}, {"val_cosine", std::nan("")}}});
  }
  const RunMetrics metrics = run.metrics();
  EXPECT_EQ(metrics.file(), run.metricsFile());
  EXPECT_EQ(metrics.validationLoss(), (LoggedSeries{{10, 2.5}, {20, 2.75}}));
  EXPECT_DOUBLE_EQ(minimumOf(metrics.validationLoss()), 2.5);
  EXPECT_DOUBLE_EQ(metrics.mean("tokens_per_s"), 200.0);
  EXPECT_DOUBLE_EQ(metrics.last("val_cosine"), 0.5);  // a NaN logged later is not a value
  EXPECT_TRUE(std::isnan(metrics.last("val_ce_gap")));
}

TEST(RunMetrics, ARunThatNeverEvaluatedSaysSoAndNamesItsLog) {
  TempDir dir;
  const RunFolder run(dir / "run");
  createRunFolder(run.path());
  MetricsLogWriter(run.metricsFile()).append({10, 0, {{"loss", 3.0}}});
  try {
    (void)run.metrics().validationLoss();
    FAIL() << "a run without val_loss gave a validation loss";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find(run.metricsFile().string()), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("no validation loss"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace strata::engine
