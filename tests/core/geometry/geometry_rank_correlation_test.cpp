// Spearman's ρ with averaged ties and its permutation p-value, against values worked out by
// hand (they equal scipy.stats.spearmanr's) and exact permutation counts.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "geometry/rank_correlation.h"

namespace strata::geometry {
namespace {

TEST(GeometryRankCorrelation, AverageRanksShareTies) {
  const std::vector<double> v{10, 20, 20, 5, 20};
  EXPECT_EQ(averageRanks(v), (std::vector<double>{2, 4, 4, 1, 4}));
}

TEST(GeometryRankCorrelation, SpearmanWithTiesMatchesHandValue) {
  // ranks b = 1, 2, 3.5, 5, 3.5 → ρ = 8 / sqrt(10 · 9.5)
  const std::vector<double> a{1, 2, 3, 4, 5}, b{5, 6, 7, 8, 7};
  EXPECT_NEAR(spearmanRho(a, b), 8.0 / std::sqrt(95.0), 1e-15);
  EXPECT_NEAR(spearmanRho(a, b), 0.8207826816681233, 1e-15);
}

TEST(GeometryRankCorrelation, MonotoneSeriesGiveOneOrMinusOne) {
  const std::vector<double> a{0.1, 0.5, 0.7, 3.0}, up{1, 10, 100, 1000}, down{4, 3, 2, 1};
  EXPECT_DOUBLE_EQ(spearmanRho(a, up), 1.0);
  EXPECT_DOUBLE_EQ(spearmanRho(a, down), -1.0);
}

// Hand values: ranks are the values; Σd² = 4, 4, 14 give r_xy = r_xz = 0.8 and r_yz = 0.3
// (1 − 6Σd²/(n(n² − 1))), so the partial ρ is (0.8 − 0.24)/sqrt(0.36 · 0.91). It equals the
// correlation of the residuals of x and y regressed on z (checked with NumPy: 0.97839918…).
TEST(GeometryRankCorrelation, PartialSpearmanMatchesTheClosedForm) {
  const std::vector<double> x{1, 2, 3, 4, 5}, y{2, 1, 4, 3, 5}, z{1, 3, 2, 5, 4};
  EXPECT_NEAR(partialSpearmanRho(x, y, z), 0.56 / std::sqrt(0.36 * 0.91), 1e-12);
  EXPECT_NEAR(partialSpearmanRho(x, y, z), 0.9783991809404567, 1e-12);
  // Only ranks matter: any monotone transform of each series gives the same value.
  const std::vector<double> x2{-3, 0.1, 7, 8, 100}, z2{10, 30, 20, 50, 40};
  EXPECT_NEAR(partialSpearmanRho(x2, y, z2), 0.9783991809404567, 1e-12);
}

TEST(GeometryRankCorrelation, PartialSpearmanIsUndefinedWhenAScoreIsRankedLikeDepth) {
  // A score monotone in depth carries nothing beyond it: r_xz = 1 and the partial ρ is NaN.
  const std::vector<double> score{4, 3, 2, 1}, loss{1, 3, 2, 4}, depth{1, 2, 3, 4};
  EXPECT_TRUE(std::isnan(partialSpearmanRho(score, loss, depth)));
  const std::vector<double> two{1, 2};
  EXPECT_THROW(partialSpearmanRho(two, two, two), std::invalid_argument);
}

TEST(GeometryRankCorrelation, ConstantSeriesIsUndefined) {
  const std::vector<double> a{1, 2, 3}, flat{7, 7, 7};
  EXPECT_TRUE(std::isnan(spearmanRho(a, flat)));
}

TEST(GeometryRankCorrelation, RefusesBadInput) {
  const std::vector<double> a{1, 2, 3}, shorter{1, 2}, one{1}, nan{1, std::nan(""), 3};
  EXPECT_THROW(spearmanRho(a, shorter), std::invalid_argument);
  EXPECT_THROW(spearmanRho(one, one), std::invalid_argument);
  EXPECT_THROW(spearmanRho(a, nan), std::invalid_argument);
}

TEST(GeometryRankCorrelation, PermutationPValueApproachesTheExactOne) {
  // n = 4, perfectly ordered: 2 of the 24 orderings reach |ρ| = 1, so p = 1/12.
  const std::vector<double> a{1, 2, 3, 4}, b{2, 4, 6, 8};
  const double p = spearmanPermutationPValue(a, b, 20000, 7);
  EXPECT_NEAR(p, 1.0 / 12.0, 0.01);
  // Uncorrelated-looking data: a large p.
  const std::vector<double> c{3, 1, 4, 2};
  EXPECT_GT(spearmanPermutationPValue(a, c, 2000, 7), 0.5);
  // Deterministic for a seed.
  EXPECT_EQ(spearmanPermutationPValue(a, b, 500, 3), spearmanPermutationPValue(a, b, 500, 3));
}

/** Spearman's ρ of two tie-free series by the closed form 1 − 6Σd²/(n(n² − 1)), written apart
 *  from the library's Pearson-of-ranks. */
double closedFormRho(const std::vector<double>& a, const std::vector<double>& b) {
  const auto rank = [](const std::vector<double>& v) {
    std::vector<double> r(v.size());
    for (size_t i = 0; i < v.size(); ++i)
      for (double other : v) r[i] += other < v[i] ? 1 : 0;
    return r;
  };
  const auto ra = rank(a), rb = rank(b);
  double d2 = 0;
  for (size_t i = 0; i < a.size(); ++i) d2 += (ra[i] - rb[i]) * (ra[i] - rb[i]);
  const double n = double(a.size());
  return 1 - 6 * d2 / (n * (n * n - 1));
}

double closedFormPartial(const std::vector<double>& x, const std::vector<double>& y,
                         const std::vector<double>& z) {
  const double xy = closedFormRho(x, y), xz = closedFormRho(x, z), yz = closedFormRho(y, z);
  return (xy - xz * yz) / std::sqrt((1 - xz * xz) * (1 - yz * yz));
}

TEST(GeometryRankCorrelation, PermutationTestMatchesTheExactPermutationDistribution) {
  // 7 layers: all 5,040 orderings of y enumerated give the exact p of each statistic; the
  // test's 40,000 random reorderings must land within Monte Carlo error (sd <= 0.0025) of them.
  const std::vector<double> x{0.3, -1.2, 2.5, 0.9, 1.7, -0.4, 3.1};              // S
  const std::vector<double> y{-0.50, -0.41, -0.47, -0.45, -0.39, -0.52, -0.44};  // −loss
  const std::vector<double> z{1, 2, 3, 4, 5, 6, 7};                              // depth
  const double rho = closedFormRho(x, y), partial = closedFormPartial(x, y, z);
  std::vector<size_t> order{0, 1, 2, 3, 4, 5, 6};
  int64_t total = 0, rhoGreater = 0, rhoLess = 0, rhoTwo = 0, partialGreater = 0, partialTwo = 0;
  do {
    std::vector<double> permuted;
    for (size_t i : order) permuted.push_back(y[i]);
    const double r = closedFormRho(x, permuted), q = closedFormPartial(x, permuted, z);
    ++total;
    rhoGreater += r >= rho - 1e-12;
    rhoLess += r <= rho + 1e-12;
    rhoTwo += std::abs(r) >= std::abs(rho) - 1e-12;
    partialGreater += q >= partial - 1e-12;
    partialTwo += std::abs(q) >= std::abs(partial) - 1e-12;
  } while (std::next_permutation(order.begin(), order.end()));
  ASSERT_EQ(total, 5040);

  const RankPermutationTest t = rankPermutationTest(x, y, z, 40000, 11);
  EXPECT_NEAR(t.rho, rho, 1e-12);
  EXPECT_NEAR(t.partialRho, partial, 1e-12);
  EXPECT_NEAR(t.rhoGreater, double(rhoGreater) / double(total), 0.01);
  EXPECT_NEAR(t.rhoTwoSided, double(rhoTwo) / double(total), 0.01);
  EXPECT_NEAR(t.partialGreater, double(partialGreater) / double(total), 0.01);
  EXPECT_NEAR(t.partialTwoSided, double(partialTwo) / double(total), 0.01);
  // One-sided: the other tail (ties at the observed ρ count in both).
  const RankPermutationTest reversed = rankPermutationTest(
      x, std::vector<double>{0.50, 0.41, 0.47, 0.45, 0.39, 0.52, 0.44}, z, 40000, 11);
  EXPECT_NEAR(reversed.rhoGreater, double(rhoLess) / double(total), 0.01);
  // The two-sided p of ρ is spearmanPermutationPValue's for the same seed, draw for draw.
  EXPECT_DOUBLE_EQ(t.rhoTwoSided, spearmanPermutationPValue(x, y, 40000, 11));
}

TEST(GeometryRankCorrelation, PooledTestMatchesTheExactStratifiedDistribution) {
  // Two strata of 4 and 5 units: all 24 × 120 = 2,880 within-stratum orderings enumerated.
  const RankSeries a{{0.3, -1.2, 2.5, 0.9}, {-0.50, -0.41, -0.47, -0.45}, {1, 2, 3, 4}};
  const RankSeries b{{1.0, 3.0, -2.0, 0.5, 2.2}, {-0.3, -0.2, -0.6, -0.1, -0.25}, {1, 2, 3, 4, 5}};
  const auto pooled = [&](const std::vector<double>& ya, const std::vector<double>& yb) {
    return (4 * closedFormPartial(a.x, ya, a.z) + 5 * closedFormPartial(b.x, yb, b.z)) / 9;
  };
  const double observed = pooled(a.y, b.y);
  std::vector<size_t> oa{0, 1, 2, 3};
  int64_t total = 0, greater = 0;
  do {
    std::vector<double> ya;
    for (size_t i : oa) ya.push_back(a.y[i]);
    std::vector<size_t> ob{0, 1, 2, 3, 4};
    do {
      std::vector<double> yb;
      for (size_t i : ob) yb.push_back(b.y[i]);
      ++total;
      greater += pooled(ya, yb) >= observed - 1e-12;
    } while (std::next_permutation(ob.begin(), ob.end()));
  } while (std::next_permutation(oa.begin(), oa.end()));
  ASSERT_EQ(total, 2880);
  const PooledPermutationTest t = pooledPartialPermutationTest({a, b}, 40000, 3);
  EXPECT_NEAR(t.statistic, observed, 1e-12);
  EXPECT_NEAR(t.greater, double(greater) / double(total), 0.01);
  // One stratum: rankPermutationTest's partial p, draw for draw.
  EXPECT_DOUBLE_EQ(pooledPartialPermutationTest({b}, 5000, 9).greater,
                   rankPermutationTest(b.x, b.y, b.z, 5000, 9).partialGreater);
}

TEST(GeometryRankCorrelation, PermutationTestOfAnUndefinedPartialRhoGivesPOne) {
  // z ranked exactly like x: the partial ρ is undefined, and so is any claim on it.
  const std::vector<double> x{1, 2, 3, 4}, y{4, 1, 3, 2}, z{10, 20, 30, 40};
  const RankPermutationTest t = rankPermutationTest(x, y, z, 100, 1);
  EXPECT_TRUE(std::isnan(t.partialRho));
  EXPECT_EQ(t.partialGreater, 1.0);
  EXPECT_EQ(t.partialTwoSided, 1.0);
  EXPECT_THROW(rankPermutationTest(x, y, z, 0, 1), std::invalid_argument);
}

}  // namespace
}  // namespace strata::geometry
