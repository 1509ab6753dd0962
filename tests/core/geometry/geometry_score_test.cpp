// The selection score S(l) and l*, checked against z-scores worked out by hand.

#include <gtest/gtest.h>

#include <cmath>

#include "geometry/metric_series.h"
#include "geometry/score.h"

namespace strata::geometry {
namespace {

const double kRoot32 = std::sqrt(1.5);  // z of (1, 2, 3): (x − 2)/sqrt(2/3)

// Layers 0..4; over candidates 1..3 log m_curv = 1, 2, 3, m_mono constant, log k_eff = 3, 2, 1.
std::vector<ProxyValues> handValues() {
  return {{std::exp(0.0), 5, std::exp(9.0)},
          {std::exp(1.0), 5, std::exp(3.0)},
          {std::exp(2.0), 5, std::exp(2.0)},
          {std::exp(3.0), 5, std::exp(1.0)},
          {std::exp(9.0), 5, std::exp(0.0)}};
}
const std::vector<int64_t> kLayers{0, 1, 2, 3, 4};

TEST(GeometryScore, MatchesHandComputedZScores) {
  const auto s = scoreLayers(kLayers, proxySeries(handValues()), {}, {1, 3});
  EXPECT_TRUE(std::isnan(s.score[0]));
  EXPECT_TRUE(std::isnan(s.score[4]));
  // S = z(log m_curv) + 0 − z(log k_eff) = 2·z(log m_curv)
  EXPECT_NEAR(s.score[1], -2 * kRoot32, 1e-12);
  EXPECT_NEAR(s.score[2], 0.0, 1e-12);
  EXPECT_NEAR(s.score[3], 2 * kRoot32, 1e-12);
  EXPECT_EQ(s.bestIndex, 3);
  EXPECT_EQ(s.rank, (std::vector<int>{0, 3, 2, 1, 0}));
}

TEST(GeometryScore, WeightsChangeTheWinner) {
  auto values = handValues();
  values[1].monotonicity =
      std::exp(4.0);  // log m_mono = 4, 0, 0 over candidates → z ≈ 1.41, −0.71, −0.71
  values[2].monotonicity = 1;
  values[3].monotonicity = 1;
  EXPECT_EQ(scoreLayers(kLayers, proxySeries(values), {1, 1, 1}, {1, 3}).bestIndex, 3);
  // Only monotonicity: layer 1 wins with z = 2/sqrt(2).
  const auto monoOnly = scoreLayers(kLayers, proxySeries(values), {0, 1, 0}, {1, 3});
  EXPECT_EQ(monoOnly.bestIndex, 1);
  EXPECT_NEAR(monoOnly.score[1], std::sqrt(2.0), 1e-12);
  // Negative curvature weight prefers the flattest layer.
  EXPECT_EQ(scoreLayers(kLayers, proxySeries(values), {-1, 0, 0}, {1, 3}).bestIndex, 1);
}

TEST(GeometryScore, CandidateRangeRestrictsTheChoice) {
  const auto all = scoreLayers(kLayers, proxySeries(handValues()), {}, {0, 4});
  EXPECT_EQ(all.bestIndex, 4);
  const auto low = scoreLayers(kLayers, proxySeries(handValues()), {}, {0, 2});
  EXPECT_EQ(low.bestIndex, 2);
  EXPECT_TRUE(std::isnan(low.score[3]));
}

TEST(GeometryScore, ConstantProxiesScoreZeroAndTheShallowestWins) {
  std::vector<ProxyValues> flat(4, ProxyValues{2, 3, 4});
  const auto s = scoreLayers({0, 1, 2, 3}, proxySeries(flat), {}, {0, 3});
  for (double v : s.score) EXPECT_EQ(v, 0.0);
  EXPECT_EQ(s.bestIndex, 0);
}

TEST(GeometryScore, UnusableLayersAreLeftOut) {
  auto values = handValues();
  values[2].curvature = std::nan("");
  values[3].effectiveRank = 0;
  const auto s = scoreLayers(kLayers, proxySeries(values), {}, {1, 3});
  EXPECT_TRUE(std::isnan(s.score[2]));
  EXPECT_TRUE(std::isnan(s.score[3]));
  EXPECT_EQ(s.bestIndex, 1);  // the only usable candidate
  EXPECT_EQ(s.rank[1], 1);
}

TEST(GeometryScore, DefaultCandidatesSkipTheEmbeddingAndTheLastLayer) {
  EXPECT_EQ(defaultCandidates(12).first, 1);
  EXPECT_EQ(defaultCandidates(12).last, 11);
  EXPECT_EQ(defaultCandidates(1).first, 0);
  EXPECT_EQ(defaultCandidates(1).last, 1);
}

TEST(GeometryScore, RefusesMismatchedInputs) {
  EXPECT_THROW(scoreLayers({0, 1}, proxySeries(handValues()), {}, {0, 1}), std::invalid_argument);
}

}  // namespace
}  // namespace strata::geometry
