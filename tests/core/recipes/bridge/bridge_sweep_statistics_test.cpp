// What a bridgeability sweep reports beside ρ(S, −loss): ρ of each proxy alone (+m_curv,
// +m_mono, −k_eff), ρ of −depth, and the partial ρ of S given depth, on hand-made rows.

#include <gtest/gtest.h>

#include <cmath>

#include "recipes/bridge/bridge_sweep.h"

namespace strata::recipes {
namespace {

BridgeSweepRow row(int64_t layer, double score, double curvature, double monotonicity,
                   double effectiveRank, double valLoss) {
  BridgeSweepRow r;
  r.layer = layer;
  r.score = score;
  r.curvature = curvature;
  r.monotonicity = monotonicity;
  r.effectiveRank = effectiveRank;
  r.valLoss = valLoss;
  return r;
}

// −loss = (2, 1, 4, 3, 5) in rank; S ranked (1, 2, 3, 4, 5); depth (1, 3, 2, 5, 4): the partial ρ
// is geometry_rank_correlation_test's hand case, (0.8 − 0.8·0.3)/sqrt(0.36·0.91). Rows are in
// sweep order, so the layers are 1, 3, 2, 5, 4 (depth) — any order works.
TEST(BridgeSweepStatistics, ProxiesDepthAndPartialRhoMatchHandValues) {
  BridgeSweepResult result;
  const double negativeLoss[5] = {2, 1, 4, 3, 5};
  const int64_t layer[5] = {1, 3, 2, 5, 4};
  for (int i = 0; i < 5; ++i)
    result.rows.push_back(row(layer[i], double(i + 1),
                              /*m_curv ranked like −loss*/ negativeLoss[i] * 10,
                              /*m_mono ranked against it*/ 1.0 / negativeLoss[i],
                              /*k_eff = −(−loss)*/ 6 - negativeLoss[i], -negativeLoss[i]));
  computeSweepStatistics(result);
  EXPECT_NEAR(result.rho, 0.8, 1e-12);
  EXPECT_NEAR(result.rhoCurvature, 1.0, 1e-12);
  EXPECT_NEAR(result.rhoMonotonicity, -1.0, 1e-12);
  EXPECT_NEAR(result.rhoEffectiveRank, 1.0, 1e-12);  // −k_eff ranked like −loss
  EXPECT_NEAR(result.rhoDepth, -0.3, 1e-12);         // ρ(−depth, −loss) = −r_yz
  EXPECT_NEAR(result.partialRho, 0.56 / std::sqrt(0.36 * 0.91), 1e-12);
}

// The docs' default-model case: loss rises with depth and S falls with it, so "shallower is
// better" gives ρ = 1 and S adds nothing: its partial ρ given depth is undefined.
TEST(BridgeSweepStatistics, AScoreMonotoneInDepthHasNoPartialRho) {
  BridgeSweepResult result;
  for (int64_t l = 1; l <= 4; ++l)
    result.rows.push_back(row(l, 5.0 - double(l), 1, 1, 1, 0.1 * double(l)));
  computeSweepStatistics(result);
  EXPECT_NEAR(result.rho, 1.0, 1e-12);
  EXPECT_NEAR(result.rhoDepth, 1.0, 1e-12);
  EXPECT_TRUE(std::isnan(result.partialRho));
  EXPECT_TRUE(std::isnan(result.rhoCurvature));  // constant proxies rank nothing
}

}  // namespace
}  // namespace strata::recipes
