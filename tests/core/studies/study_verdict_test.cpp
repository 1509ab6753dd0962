// The decision rule of study claims (core/studies/study_verdict.h) and the analysis that applies
// it (core/studies/study_analysis.h).

#include "studies/study_verdict.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "studies/study_analysis.h"

namespace strata {
namespace {

SeedSummary interval(double low, double high, int64_t n = 3) {
  SeedSummary s;
  s.n = n;
  s.low = low;
  s.high = high;
  s.mean = (low + high) / 2;
  return s;
}

StudyClaim lowerClaim(double margin = 0) {
  return {"c", "arm is lower", "loss", "arm", "base", "", ClaimDirection::Lower, margin};
}

TEST(StudyVerdict, IntervalBelowZeroSupportsALowerClaim) {
  EXPECT_EQ(decideClaim(lowerClaim(), interval(-0.3, -0.1)).result, "supported");
}

TEST(StudyVerdict, IntervalAboveZeroContradictsALowerClaim) {
  const StudyVerdict v = decideClaim(lowerClaim(), interval(0.1, 0.4));
  EXPECT_EQ(v.result, "not supported");
  EXPECT_NE(v.reason.find("against the claim"), std::string::npos);
}

TEST(StudyVerdict, IntervalAcrossZeroIsInconclusive) {
  EXPECT_EQ(decideClaim(lowerClaim(), interval(-0.2, 0.1)).result, "inconclusive");
  EXPECT_EQ(decideClaim(lowerClaim(), interval(-0.2, 0.0)).result, "inconclusive");  // touching 0
}

TEST(StudyVerdict, HigherClaimMirrorsTheRule) {
  StudyClaim c = lowerClaim();
  c.direction = ClaimDirection::Higher;
  EXPECT_EQ(decideClaim(c, interval(0.1, 0.3)).result, "supported");
  EXPECT_EQ(decideClaim(c, interval(-0.3, -0.1)).result, "not supported");
}

TEST(StudyVerdict, MarginMustBeCleared) {
  EXPECT_EQ(decideClaim(lowerClaim(0.1), interval(-0.3, -0.05)).result, "inconclusive");
  EXPECT_EQ(decideClaim(lowerClaim(0.1), interval(-0.3, -0.15)).result, "supported");
}

TEST(StudyVerdict, OneSeedIsInconclusive) {
  EXPECT_EQ(decideClaim(lowerClaim(), interval(-0.3, -0.3, 1)).result, "inconclusive");
}

StudyProtocol twoArmProtocol() {
  StudyProtocol p;
  p.name = "toy";
  p.seeds = {0, 1, 2};
  p.arms = {{"a", "pretrain", {}, ""}, {"b", "pretrain", {}, ""}};
  p.metrics = {{"loss", "loss", true}};
  p.claims = {{"a_lower", "a is lower than b", "loss", "a", "b", "", ClaimDirection::Lower, 0},
              {"a_below_ref", "a is below the reference", "loss", "a", "", "ref",
               ClaimDirection::Lower, 0}};
  p.headline = "a_lower";
  return p;
}

std::vector<StudyRunResult> runs(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<StudyRunResult> r;
  for (int64_t s = 0; s < 3; ++s) {
    r.push_back({"a", s, {}, {{{"loss", a[static_cast<size_t>(s)]}}, {}}});
    r.push_back({"b", s, {}, {{{"loss", b[static_cast<size_t>(s)]}}, {}}});
  }
  return r;
}

TEST(StudyAnalysis, PairsBySeedAndDecidesTheHeadline) {
  // a − b per seed: −0.5, −0.1, −0.2 — every seed agrees, although a's spread overlaps b's.
  const StudyAnalysis a =
      analyseStudy(twoArmProtocol(), {{"ref", 2.0}}, runs({1.0, 2.0, 1.5}, {1.5, 2.1, 1.7}));
  ASSERT_EQ(a.claims.size(), 2u);
  EXPECT_NEAR(a.claims[0].difference.mean, -0.8 / 3, 1e-12);
  EXPECT_NEAR(a.claims[0].difference.low, -0.5, 1e-12);
  EXPECT_NEAR(a.claims[0].difference.high, -0.1, 1e-12);
  EXPECT_EQ(a.verdict.result, "supported");
  // Against the reference 2.0: −1, 0, −0.5 → touches 0: inconclusive.
  EXPECT_EQ(a.claims[1].verdict.result, "inconclusive");
  EXPECT_NEAR(a.aggregates.at("b").at("loss").mean, 5.3 / 3, 1e-12);
}

TEST(StudyAnalysis, OneSeedDisagreeingMakesTheHeadlineInconclusive) {
  const StudyAnalysis a =
      analyseStudy(twoArmProtocol(), {{"ref", 2.0}}, runs({1.0, 2.2, 1.5}, {1.5, 2.1, 1.7}));
  EXPECT_EQ(a.verdict.result, "inconclusive");
}

TEST(StudyAnalysis, ClaimAgainstAnotherMetricOfTheSameArmPairsBySeed) {
  StudyProtocol p = twoArmProtocol();
  p.metrics.push_back({"other", "other", true});
  p.claims.push_back({"loss_below_other", "a's loss is below its other", "loss", "a", "", "",
                      ClaimDirection::Lower, 0, "other"});
  std::vector<StudyRunResult> r = runs({1.0, 2.0, 1.5}, {1.5, 2.1, 1.7});
  for (auto& run : r)
    run.measurement.values["other"] = run.measurement.values["loss"] + (run.seed == 1 ? -0.1 : 0.3);
  const StudyAnalysis a = analyseStudy(p, {{"ref", 2.0}}, r);
  // a's loss − a's other: −0.3, +0.1, −0.3 (seed 1 disagrees).
  EXPECT_NEAR(a.claims[2].difference.mean, -0.5 / 3, 1e-12);
  EXPECT_EQ(a.claims[2].verdict.result, "inconclusive");
}

TEST(StudyAnalysis, ProtocolNamingAnUnknownArmIsRefused) {
  StudyProtocol p = twoArmProtocol();
  p.claims[0].baseline = "c";
  EXPECT_THROW(checkProtocol(p, {{"ref", 2.0}}), ConfigError);
  EXPECT_THROW(checkProtocol(twoArmProtocol(), {}), ConfigError);  // the reference is missing
}

}  // namespace
}  // namespace strata
