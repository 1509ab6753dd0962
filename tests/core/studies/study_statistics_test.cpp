// Statistics over seeds (core/studies/study_statistics.h) against hand-computed cases.

#include "studies/study_statistics.h"

#include <gtest/gtest.h>

#include <cmath>

#include "common/error.h"

namespace strata::studies {
namespace {

TEST(StudyStatistics, MeanAndSampleSdOfKnownValues) {
  // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, Σ(x − 5)² = 32, sample sd √(32 / 7).
  const std::vector<double> v = {2, 4, 4, 4, 5, 5, 7, 9};
  EXPECT_DOUBLE_EQ(meanOf(v), 5.0);
  EXPECT_DOUBLE_EQ(sampleSd(v), std::sqrt(32.0 / 7.0));
  EXPECT_TRUE(std::isnan(sampleSd({1.0})));
}

TEST(StudyStatistics, LinearQuantileInterpolatesBetweenOrderStatistics) {
  const std::vector<double> sorted = {1, 2, 3, 4, 5};
  EXPECT_DOUBLE_EQ(linearQuantile(sorted, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(linearQuantile(sorted, 0.5), 3.0);
  EXPECT_DOUBLE_EQ(linearQuantile(sorted, 0.125), 1.5);  // position 0.5 between 1 and 2
  EXPECT_DOUBLE_EQ(linearQuantile(sorted, 1.0), 5.0);
}

TEST(StudyStatistics, BootstrapIntervalContainsTheMeanAndStaysInsideTheRange) {
  const std::vector<double> v = {3.1, 2.9, 3.4, 3.0, 2.7, 3.3};
  const SeedSummary s = summarise(v, {});
  EXPECT_EQ(s.n, 6);
  EXPECT_LT(s.low, s.mean);
  EXPECT_GT(s.high, s.mean);
  EXPECT_GE(s.low, 2.7);
  EXPECT_LE(s.high, 3.4);
  // The interval of the mean is narrower than the data's range.
  EXPECT_GT(s.low, 2.7);
  EXPECT_LT(s.high, 3.4);
}

TEST(StudyStatistics, BootstrapOfThreeSeedsReachesTheExtremes) {
  // P(every draw is the minimum) = 1/27 > 2.5 %: the 95 % interval is [min, max].
  const SeedSummary s = summarise({1.0, 2.0, 4.0}, {});
  EXPECT_DOUBLE_EQ(s.low, 1.0);
  EXPECT_DOUBLE_EQ(s.high, 4.0);
}

TEST(StudyStatistics, BootstrapIsSeededAndReproducible) {
  const std::vector<double> v = {0.31, 0.12, 0.77, 0.23, 0.95, 0.41, 0.58};
  BootstrapSettings a;
  a.resamples = 101;  // few draws, so that another seed visibly moves the interval
  const auto first = bootstrapMeanInterval(v, a);
  EXPECT_EQ(first, bootstrapMeanInterval(v, a));
  a.seed = 7;
  EXPECT_NE(first, bootstrapMeanInterval(v, a));
}

TEST(StudyStatistics, ConstantValuesGiveAZeroWidthInterval) {
  const SeedSummary s = summarise({2.5, 2.5, 2.5}, {});
  EXPECT_DOUBLE_EQ(s.sd, 0.0);
  EXPECT_DOUBLE_EQ(s.low, 2.5);
  EXPECT_DOUBLE_EQ(s.high, 2.5);
}

TEST(StudyStatistics, SummaryLeavesOutMissingValues) {
  const SeedSummary s = summarise({1.0, std::nan(""), 3.0}, {});
  EXPECT_EQ(s.n, 2);
  EXPECT_DOUBLE_EQ(s.mean, 2.0);
  const SeedSummary none = summarise({}, {});
  EXPECT_TRUE(std::isnan(summarise({4.0}, {}).sd));  // one seed: no spread, not a spread of 0
  EXPECT_EQ(none.n, 0);
  EXPECT_TRUE(std::isnan(none.mean));
}

TEST(StudyStatistics, PairedDifferencesAreTakenSeedBySeed) {
  const std::vector<double> d =
      pairedDifferences({3.0, 2.5, std::nan(""), 4.0}, {2.0, 3.0, 1.0, 3.5});
  ASSERT_EQ(d.size(), 3u);
  EXPECT_DOUBLE_EQ(d[0], 1.0);
  EXPECT_DOUBLE_EQ(d[1], -0.5);
  EXPECT_DOUBLE_EQ(d[2], 0.5);
  EXPECT_THROW(pairedDifferences({1.0}, {1.0, 2.0}), Error);
}

}  // namespace
}  // namespace strata::studies
