// What the Training tab keeps of a run it follows: DecimatedSeries (bounded buckets of min, max
// and mean) checked against buckets computed directly from the raw points, and StepRate (steps
// per second over the last minute, never across a resume).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "engine/decimated_series.h"
#include "engine/metrics_log.h"
#include "engine/step_rate.h"

namespace strata::engine {

namespace {

/** The stride after n points: the smallest power of two that fits them in `capacity` buckets. */
int64_t expectedStride(int64_t n, int64_t capacity) {
  int64_t stride = 1;
  while ((n + stride - 1) / stride > capacity) stride *= 2;
  return stride;
}

TEST(DecimatedSeries, BucketsEqualThoseComputedFromTheRawPoints) {
  constexpr int64_t kCapacity = 6;
  std::mt19937 random(7);
  std::normal_distribution<double> noise;
  DecimatedSeries series(kCapacity);
  std::vector<double> steps, values;
  for (int64_t n = 1; n <= 300; ++n) {
    steps.push_back(static_cast<double>(3 * n + 1));
    values.push_back(noise(random));
    series.append(steps.back(), values.back());

    const int64_t stride = expectedStride(n, kCapacity);
    ASSERT_EQ(series.stride(), stride) << n << " points";
    ASSERT_EQ(series.pointCount(), n);
    const auto& buckets = series.buckets();
    ASSERT_EQ(static_cast<int64_t>(buckets.size()), (n + stride - 1) / stride) << n << " points";
    for (std::size_t j = 0; j < buckets.size(); ++j) {
      const auto first = static_cast<int64_t>(j) * stride;
      const int64_t end = std::min(first + stride, n);
      const auto min = std::min_element(values.begin() + first, values.begin() + end);
      const auto max = std::max_element(values.begin() + first, values.begin() + end);
      double sum = 0, stepSum = 0;
      for (int64_t i = first; i < end; ++i) sum += values[i], stepSum += steps[i];
      const DecimatedSeries::Bucket& bucket = buckets[j];
      ASSERT_EQ(bucket.count, end - first);
      EXPECT_EQ(bucket.min, *min);
      EXPECT_EQ(bucket.minStep, steps[min - values.begin()]);
      EXPECT_EQ(bucket.max, *max);
      EXPECT_EQ(bucket.maxStep, steps[max - values.begin()]);
      EXPECT_NEAR(bucket.mean(), sum / static_cast<double>(end - first), 1e-12);
      EXPECT_NEAR(bucket.meanStep(), stepSum / static_cast<double>(end - first), 1e-9);
    }
  }
}

TEST(DecimatedSeries, KeepsEveryPointWhileTheyFitAndEverySpikeAfter) {
  DecimatedSeries series(8);
  for (int step = 0; step < 8; ++step) series.append(step, step % 3);
  std::vector<double> steps, values;
  series.envelope(steps, values);
  EXPECT_EQ(steps, (std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(values, (std::vector<double>{0, 1, 2, 0, 1, 2, 0, 1}));

  // 1,000 flat points around one spike and one dip: both stay on the drawn line.
  series.clear();
  for (int step = 0; step < 1000; ++step)
    series.append(step, step == 613 ? 50.0 : step == 97 ? -50.0 : 1.0);
  EXPECT_EQ(series.stride(), 128);
  EXPECT_LE(series.buckets().size(), 8u);
  series.envelope(steps, values);
  EXPECT_TRUE(std::is_sorted(steps.begin(), steps.end()));
  ASSERT_NE(std::find(values.begin(), values.end(), 50.0), values.end());
  EXPECT_EQ(steps[std::find(values.begin(), values.end(), 50.0) - values.begin()], 613);
  EXPECT_EQ(steps[std::find(values.begin(), values.end(), -50.0) - values.begin()], 97);
  // A flat bucket is drawn as one point, a bucket with a spike as two.
  EXPECT_EQ(steps.size(), series.buckets().size() + 2);
}

TEST(DecimatedSeries, MeansAreTheBucketAverages) {
  DecimatedSeries series(2);
  for (int step = 1; step <= 4; ++step) series.append(step, step * 10.0);  // stride 2
  std::vector<double> steps, values;
  series.means(steps, values);
  EXPECT_EQ(steps, (std::vector<double>{1.5, 3.5}));
  EXPECT_EQ(values, (std::vector<double>{15, 35}));
}

TEST(DecimatedSeries, RefusesACapacityThatCannotMergeInPairs) {
  EXPECT_THROW(DecimatedSeries(0), std::invalid_argument);
  EXPECT_THROW(DecimatedSeries(7), std::invalid_argument);
}

TEST(StepRate, StepsPerSecondOverTheLastMinute) {
  StepRate rate(60);
  EXPECT_EQ(rate.stepsPerSecond(), 0);
  for (int i = 0; i < 5; ++i) rate.add(i * 10, 100.0 + i * 2);  // 10 steps every 2 s
  EXPECT_EQ(rate.stepsPerSecond(), 5.0);
  // Slower for the last minute: only that minute counts.
  rate.add(60, 200);
  for (int i = 1; i <= 30; ++i) rate.add(60 + i, 200.0 + 2 * i);
  EXPECT_EQ(rate.stepsPerSecond(), 0.5);
}

TEST(StepRate, TwoRecordsFarApartStillGiveARate) {
  StepRate rate(60);
  rate.add(0, 0);
  rate.add(100, 1000);
  EXPECT_EQ(rate.stepsPerSecond(), 0.1);
}

TEST(StepRate, NeverAcrossAResume) {
  StepRate rate(60);
  for (int i = 0; i < 5; ++i) rate.add(i * 10, 100.0 + i * 2);
  rate.add(3, 111);  // resumed from an earlier step
  EXPECT_EQ(rate.stepsPerSecond(), 0);
  rate.add(13, 113);
  EXPECT_EQ(rate.stepsPerSecond(), 5.0);
}

TEST(StepRate, CountsTrainingTimeNotPausesOrTheTimeBetweenStopAndResume) {
  // 2 steps a second of training; an hour's pause after step 20, then a stop and a resume
  // the next day: the wall times jump, train_seconds does not.
  StepRate rate(60);
  const auto record = [](int64_t step, double wall, double trained) {
    return MetricsRecord{step, wall, {{"loss", 1.0}, {"train_seconds", trained}}};
  };
  for (int64_t step = 2; step <= 20; step += 2)
    rate.add(record(step, 1e9 + step / 2.0, step / 2.0));
  rate.add(record(22, 1e9 + 3600 + 11, 11));
  rate.add(record(24, 1e9 + 90000 + 12, 12));
  rate.add(MetricsRecord{24, 1e9 + 90000 + 13, {{"val_loss", 2.0}}});  // an evaluation: no clock
  rate.add(record(26, 1e9 + 90000 + 14, 13));
  EXPECT_DOUBLE_EQ(rate.stepsPerSecond(), 2.0);
}

TEST(StepRate, RunsWithoutTrainingTimeUseTheWallTime) {
  StepRate rate(60);
  for (int64_t step = 1; step <= 5; ++step)
    rate.add(MetricsRecord{step, 100.0 + 2 * step, {{"loss", 1.0}}});
  EXPECT_DOUBLE_EQ(rate.stepsPerSecond(), 0.5);
  // A resumed old run that now logs train_seconds: the two clocks are never mixed.
  rate.add(MetricsRecord{6, 120, {{"train_seconds", 0.5}}});
  EXPECT_EQ(rate.stepsPerSecond(), 0);
  rate.add(MetricsRecord{8, 121, {{"train_seconds", 1.5}}});
  EXPECT_DOUBLE_EQ(rate.stepsPerSecond(), 2.0);
}

}  // namespace
}  // namespace strata::engine
