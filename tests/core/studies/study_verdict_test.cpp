// The decision rule of study claims (core/studies/study_verdict.h) and the analysis that applies
// it (core/studies/study_analysis.h).

#include "studies/study_verdict.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "studies/study_analysis.h"

namespace strata::studies {
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

TEST(StudyVerdict, APermutationPMustAlsoBeBelowItsAlpha) {
  StudyClaim c = lowerClaim();
  c.permutationP = "perm_p";
  EXPECT_EQ(decideClaim(c, interval(-0.3, -0.1), 0.01).result, "supported");
  const StudyVerdict chance = decideClaim(c, interval(-0.3, -0.1), 0.2);
  EXPECT_EQ(chance.result, "inconclusive");
  EXPECT_NE(chance.reason.find("perm_p = 0.2000"), std::string::npos) << chance.reason;
  EXPECT_EQ(decideClaim(c, interval(-0.3, -0.1), 0.05).result, "inconclusive");  // not below
  EXPECT_EQ(decideClaim(c, interval(-0.3, -0.1)).result, "inconclusive");        // not computed
  // The p never turns an interval against the claim into anything else.
  EXPECT_EQ(decideClaim(c, interval(0.1, 0.3), 0.001).result, "not supported");
  // Reported beside, not deciding: the interval alone.
  c.permutationDecides = false;
  EXPECT_EQ(decideClaim(c, interval(-0.3, -0.1), 0.2).result, "supported");
}

TEST(StudyVerdict, TheAnalysisHandsEachClaimItsPermutationP) {
  StudyProtocol p;
  p.name = "toy";
  p.seeds = {0, 1, 2};
  p.arms = {{"arm", "pretrain", {}, ""}};
  p.metrics = {{"rho", "rho", false}};
  p.acrossSeedMetrics = {{"perm_p", "p", false}};
  StudyClaim c("c", "rho above 0", "rho", "arm", "", "zero", ClaimDirection::Higher, 0);
  c.permutationP = "perm_p";
  p.claims = {c};
  p.headline = "c";
  std::vector<StudyRunResult> runs;
  for (int64_t seed : p.seeds) {
    StudyRunResult r{"arm", seed, "", {}};
    r.measurement.values["rho"] = 0.4 + 0.01 * double(seed);
    runs.push_back(r);
  }
  const std::map<std::string, double> facts = {{"zero", 0.0}};
  EXPECT_EQ(analyseStudy(p, facts, runs, {{"perm_p", 0.01}}).verdict.result, "supported");
  const StudyAnalysis a = analyseStudy(p, facts, runs, {{"perm_p", 0.2}});
  EXPECT_EQ(a.verdict.result, "inconclusive");
  EXPECT_EQ(a.acrossSeeds.at("perm_p"), 0.2);
  // A claim naming an across-seeds value the protocol does not declare is refused up front.
  p.acrossSeedMetrics.clear();
  EXPECT_THROW(checkProtocol(p, facts), ConfigError);
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

/** Arms base, x, y with a validation metric `val` and a held-out metric `test` per seed. */
StudyProtocol selectionProtocol() {
  StudyProtocol p;
  p.name = "toy";
  p.seeds = {0, 1, 2};
  p.arms = {{"base", "pretrain", {}, ""}, {"x", "pretrain", {}, ""}, {"y", "pretrain", {}, ""}};
  p.metrics = {{"val", "validation loss", true}, {"test", "held-out loss", true}};
  StudyClaim best{"best_beats_base",
                  "the best arm on validation beats base on held-out data",
                  "test",
                  "x",
                  "base",
                  "",
                  ClaimDirection::Lower,
                  0};
  best.candidates = {"x", "y"};
  best.selectionMetric = "val";
  p.claims = {best};
  p.headline = "best_beats_base";
  return p;
}

void add(std::vector<StudyRunResult>& r, const std::string& arm, std::vector<double> val,
         std::vector<double> test) {
  for (int64_t s = 0; s < 3; ++s)
    r.push_back({arm, s, {}, {{{"val", val[size_t(s)]}, {"test", test[size_t(s)]}}, {}}});
}

TEST(StudyAnalysis, SelectedClaimPicksTheBestValidationArmAndTestsItOnHeldOutNumbers) {
  std::vector<StudyRunResult> r;
  add(r, "base", {2.0, 2.0, 2.0}, {2.0, 2.1, 2.2});
  // y is best on validation (mean 1.5 < x's 1.6) but no better than base on held-out data;
  // x would have been supported on held-out data. The selection must not peek at `test`.
  add(r, "x", {1.6, 1.6, 1.6}, {1.5, 1.6, 1.7});
  add(r, "y", {1.4, 1.5, 1.6}, {2.1, 2.0, 2.3});
  const StudyAnalysis a = analyseStudy(selectionProtocol(), {}, r);
  ASSERT_EQ(a.claims.size(), 1u);
  EXPECT_EQ(a.claims[0].claim.arm, "y");
  EXPECT_NEAR(a.claims[0].selection.at("x"), 1.6, 1e-12);
  EXPECT_NEAR(a.claims[0].selection.at("y"), 1.5, 1e-12);
  // y − base on `test`: +0.1, −0.1, +0.1 — inconclusive, not x's clear −0.5.
  EXPECT_NEAR(a.claims[0].difference.mean, 0.1 / 3, 1e-12);
  EXPECT_EQ(a.verdict.result, "inconclusive");
}

TEST(StudyAnalysis, SelectionOfAHigherIsBetterMetricTakesTheLargestMeanAndTiesTheFirst) {
  StudyProtocol p = selectionProtocol();
  p.metrics[0].lowerIsBetter = false;
  std::vector<StudyRunResult> r;
  add(r, "base", {0, 0, 0}, {2.0, 2.0, 2.0});
  add(r, "x", {1, 2, 3}, {1.0, 1.1, 1.2});
  add(r, "y", {2, 2, 2}, {3.0, 3.0, 3.0});
  const StudyAnalysis a = analyseStudy(p, {}, r);
  EXPECT_EQ(a.claims[0].claim.arm, "x");  // means 2 and 2: the first listed
  EXPECT_EQ(a.verdict.result, "supported");
  p.claims[0].candidates = {"y", "x"};
  EXPECT_EQ(analyseStudy(p, {}, r).claims[0].claim.arm, "y");
}

TEST(StudyAnalysis, AnArmLimitedToTheFirstSeedsIsPlannedAndPairedOnThoseOnly) {
  StudyProtocol p = twoArmProtocol();
  p.arms[1].seedLimit = 2;  // b trains at seeds 0 and 1 only
  std::vector<StudyRunResult> r = runs({1.0, 2.0, 1.5}, {1.5, 2.1, 1.7});
  r.pop_back();  // b at seed 2 was never trained
  const StudyAnalysis a = analyseStudy(p, {{"ref", 2.0}}, r);
  EXPECT_EQ(a.runsPlanned, 5);
  EXPECT_TRUE(a.complete());
  EXPECT_EQ(a.claims[0].difference.n, 2);  // a − b at seeds 0 and 1: −0.5, −0.1
  EXPECT_NEAR(a.claims[0].difference.mean, -0.3, 1e-12);
  EXPECT_EQ(a.claims[1].difference.n, 3);  // a against the reference: every seed of a
  EXPECT_TRUE(p.arms[1].runsAtSeed(1));
  EXPECT_FALSE(p.arms[1].runsAtSeed(2));
  EXPECT_TRUE(p.arms[0].runsAtSeed(7));
}

TEST(StudyAnalysis, ProtocolNamingAnUnknownArmIsRefused) {
  StudyProtocol p = twoArmProtocol();
  p.claims[0].baseline = "c";
  EXPECT_THROW(checkProtocol(p, {{"ref", 2.0}}), ConfigError);
  EXPECT_THROW(checkProtocol(twoArmProtocol(), {}), ConfigError);  // the reference is missing
  StudyProtocol selecting = selectionProtocol();
  selecting.claims[0].candidates.push_back("z");
  EXPECT_THROW(checkProtocol(selecting, {}), ConfigError);
  selecting = selectionProtocol();
  selecting.claims[0].selectionMetric = "nope";
  EXPECT_THROW(checkProtocol(selecting, {}), ConfigError);
}

}  // namespace
}  // namespace strata::studies
