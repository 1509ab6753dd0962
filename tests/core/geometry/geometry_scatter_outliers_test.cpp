// The layer detail scatter's clipping (issue 41): numpy's quantile, the bounds of each rule, the
// points beyond them and where they are drawn, row norms and the outlier list, against values
// computed by hand (the numpy values in the comments are np.quantile's defaults).

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "geometry/scatter_outliers.h"

namespace strata::geometry {
namespace {

std::vector<double> range(int from, int to) {  // from..to inclusive
  std::vector<double> values;
  for (int v = from; v <= to; ++v) values.push_back(v);
  return values;
}

TEST(ScatterOutliers, QuantileInterpolatesLinearlyBetweenOrderStatistics) {
  // np.quantile(np.arange(1, 11), [0, .25, .5, .9, 1]) = [1, 3.25, 5.5, 9.1, 10]
  std::vector<double> values = {7, 3, 10, 1, 5, 9, 2, 8, 4, 6};
  EXPECT_DOUBLE_EQ(quantile(values, 0), 1);
  EXPECT_DOUBLE_EQ(quantile(values, 0.25), 3.25);
  EXPECT_DOUBLE_EQ(quantile(values, 0.5), 5.5);
  EXPECT_DOUBLE_EQ(quantile(values, 0.9), 9.1);
  EXPECT_DOUBLE_EQ(quantile(values, 1), 10);
  values.push_back(std::numeric_limits<double>::quiet_NaN());  // left out
  EXPECT_DOUBLE_EQ(quantile(values, 0.25), 3.25);
  EXPECT_DOUBLE_EQ(quantile({4}, 0.3), 4);
  EXPECT_THROW(quantile({}, 0.5), std::invalid_argument);
  EXPECT_THROW(quantile({1, 2}, 1.5), std::invalid_argument);
}

TEST(ScatterOutliers, RobustBoundsLeaveACleanCloudWholeAndCutOffInjectedOutliers) {
  // 0..100: Q(.05) = 5, Q(.95) = 95, widened by 45 each side → [−40, 140], held to the data.
  const AxisBounds clean = clipBounds(range(0, 100), kRobustClip);
  EXPECT_DOUBLE_EQ(clean.low, 0);
  EXPECT_DOUBLE_EQ(clean.high, 100);
  // The plain 1–99 % clip cuts a clean cloud: [1, 99].
  const AxisBounds percentile = clipBounds(range(0, 100), kPercentileClip);
  EXPECT_DOUBLE_EQ(percentile.low, 1);
  EXPECT_DOUBLE_EQ(percentile.high, 99);
  const AxisBounds full = clipBounds(range(0, 100), kFullRange);
  EXPECT_DOUBLE_EQ(full.low, 0);
  EXPECT_DOUBLE_EQ(full.high, 100);
  // 0..99 and three at 1000 (n = 103): Q(.05) = x_5 + .1 = 5.1, Q(.95) = x_96 + .9 = 96.9,
  // widened by 45.9 → [0 (the minimum), 142.8]: the three are beyond, the rest inside.
  std::vector<double> injected = range(0, 99);
  injected.insert(injected.end(), {1000, 1000, 1000});
  const AxisBounds robust = clipBounds(injected, kRobustClip);
  EXPECT_DOUBLE_EQ(robust.low, 0);
  EXPECT_NEAR(robust.high, 142.8, 1e-12);
}

TEST(ScatterOutliers, ClipScatterFlagsPointsBeyondEitherAxis) {
  // 103 points: x = 0..99 then 1000 ×3 (as above); y = 0..99 then 50, with row 0's y = −500.
  std::vector<float> xy;
  for (int i = 0; i < 100; ++i) xy.insert(xy.end(), {float(i), float(i == 0 ? -500 : i)});
  for (int i = 0; i < 3; ++i) xy.insert(xy.end(), {1000.0f, 50.0f});
  const ScatterClipping clipping = clipScatter(xy, kRobustClip);
  EXPECT_EQ(clipping.clippedCount, 4);
  ASSERT_EQ(clipping.clipped.size(), 103u);
  for (std::size_t r = 0; r < 103; ++r)
    EXPECT_EQ(clipping.clipped[r], r == 0 || r >= 100 ? 1 : 0) << "row " << r;
  EXPECT_NEAR(clipping.x.high, 142.8, 1e-5);
  EXPECT_LT(clipping.y.low, 1);  // row 0's −500 is beyond, 1 is not
  EXPECT_GT(clipping.y.low, -500);

  const ScatterClipping none = clipScatter(xy, kFullRange);
  EXPECT_EQ(none.clippedCount, 0);
  EXPECT_DOUBLE_EQ(none.x.high, 1000);
  EXPECT_DOUBLE_EQ(none.y.low, -500);
}

TEST(ScatterOutliers, EdgePlacementMovesOnlyTheCoordinatesBeyondIntoTheBand) {
  ScatterClipping clipping;
  clipping.x = {0, 10};
  clipping.y = {-1, 1};
  const std::vector<float> xy = {5, 0, 50, 0.5f, -3, 7, 10, -1};
  const std::vector<float> placed = edgePlacement(xy, clipping, 0.5, 0.1);
  const std::vector<float> expected = {5, 0, 10.5f, 0.5f, -0.5f, 1.1f, 10, -1};
  ASSERT_EQ(placed.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_FLOAT_EQ(placed[i], expected[i]) << i;
}

TEST(ScatterOutliers, RowNormsAreEuclidean) {
  const std::vector<float> rows = {3, 4, 0, 0, 0, 0, 1, 2, 2, -2, -4, -4};
  const std::vector<float> norms = rowNorms({rows.data(), 4, 3});
  EXPECT_EQ(norms, (std::vector<float>{5, 0, 3, 6}));
}

TEST(ScatterOutliers, OutlierRowsAreTheClippedAndTheLargestNormsByNorm) {
  const std::vector<float> norms = {1, 9, 3, 7, 5, 9};
  const std::vector<uint8_t> clipped = {0, 1, 1, 0, 0, 0};
  // Clipped rows 1 (‖h‖ 9) and 2 (‖h‖ 3) and the three largest (rows 1 and 5 at 9, row 3 at 7),
  // each once, by norm, ties by row.
  EXPECT_EQ(outlierRows(norms, clipped, 3, 100), (std::vector<int64_t>{1, 5, 3, 2}));
  EXPECT_EQ(outlierRows(norms, clipped, 3, 2), (std::vector<int64_t>{1, 5}));
  EXPECT_EQ(outlierRows(norms, clipped, 0, 100), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(outlierRows({}, clipped, 3, 100), (std::vector<int64_t>{1, 2}));  // no norms
}

TEST(ScatterOutliers, CommonTokensCountIdsAmongTheRowsMostFrequentFirst) {
  //                               row: 0   1   2   3   4   5   6   7
  const std::vector<int32_t> ids = {220, 198, 220, 5, 198, 220, 7, 198};
  const std::vector<int64_t> rows = {1, 2, 3, 4, 5, 6, 7};  // row 0 left out
  const std::vector<TokenCount> counts = commonTokens(rows, ids, 3);
  // 198 three times (first at row 1), 220 twice (row 2), then 5 and 7 once each: 5 first.
  ASSERT_EQ(counts.size(), 3u);
  EXPECT_EQ(counts[0].id, 198);
  EXPECT_EQ(counts[0].count, 3);
  EXPECT_EQ(counts[0].firstRow, 1);
  EXPECT_EQ(counts[1].id, 220);
  EXPECT_EQ(counts[1].count, 2);
  EXPECT_EQ(counts[1].firstRow, 2);
  EXPECT_EQ(counts[2].id, 5);
  EXPECT_EQ(counts[2].count, 1);
  EXPECT_TRUE(commonTokens({}, ids, 3).empty());
}

TEST(ScatterOutliers, RowsInBoxAreThoseInsideItsClosedBounds) {
  const std::vector<float> xy = {0, 0, 1, 1, 2, 2, 1, 3, -1, 1};
  EXPECT_EQ(rowsInBox(xy, {0, 2}, {0, 2}), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(rowsInBox(xy, {0.5, 1.5}, {0.5, 5}), (std::vector<int64_t>{1, 3}));
  EXPECT_TRUE(rowsInBox(xy, {5, 6}, {0, 2}).empty());
}

}  // namespace
}  // namespace strata::geometry
