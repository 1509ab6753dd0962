// Numbers a study reads from a run's metrics log (core/studies/study_run_metrics.h).

#include "studies/study_run_metrics.h"

#include <gtest/gtest.h>

#include <cmath>

namespace strata {
namespace {

MetricsRecord logged(int64_t step, double wall, double tokensPerSecond) {
  return {step, wall, {{"loss", 1.0}, {"tokens_per_s", tokensPerSecond}}};
}

TEST(StudyRunMetrics, TrainingSecondsLeaveOutTheTimeARunWasStopped) {
  // 10 tokens per step at 100 tokens/s: every 10-step interval takes 1 s. The run stops after
  // step 30 and resumes 97 s later; the interval ending at step 40 still took 1 s of training.
  const std::vector<MetricsRecord> records = {logged(10, 1, 100),
                                              logged(20, 2, 100),
                                              logged(30, 3, 100),
                                              {30, 3.5, {{"val_loss", 2.0}}},
                                              logged(40, 100, 100)};
  EXPECT_NEAR(trainingSeconds(records), 4.0, 1e-9);
}

TEST(StudyRunMetrics, SeriesBestAndLast) {
  const std::vector<MetricsRecord> records = {{10, 0, {{"val_loss", 3.0}}},
                                              {20, 0, {{"loss", 9.0}}},
                                              {30, 0, {{"val_loss", 2.0}}},
                                              {40, 0, {{"val_loss", 2.5}}}};
  const MetricSeries val = metricSeries(records, "val_loss");
  ASSERT_EQ(val.size(), 3u);
  EXPECT_EQ(val[1].first, 30);
  EXPECT_DOUBLE_EQ(minimumOf(val), 2.0);
  EXPECT_DOUBLE_EQ(lastOf(val), 2.5);
  EXPECT_TRUE(std::isnan(lastOf({})));
  EXPECT_TRUE(std::isnan(trainingSeconds({logged(10, 1, 100)})));  // one interval: no rate
}

}  // namespace
}  // namespace strata
