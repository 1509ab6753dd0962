// The DiHAL studies' layer-permutation test (core/studies/layer_permutation.h): on hand-fed runs
// it is geometry::rankPermutationTest of the seed means, and on the SmolLM2 study's record
// (docs/studies/dihal-pretrained.json) it agrees with a separately written NumPy/SciPy reference
// (tests/python/layer_permutation_reference.py) within Monte Carlo error.

#include "studies/layer_permutation.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <sstream>

#include "geometry/rank_correlation.h"
#include "studies/report/study_report_reader.h"
#include "studies/study_runner.h"
#include "support/python_finder.h"

namespace strata::studies {
namespace {

StudyRunResult bridgeRun(const std::string& arm, int64_t seed, double loss) {
  StudyRunResult r{arm, seed, "runs/" + arm, {}};
  r.measurement.values["val_loss_best"] = loss;
  return r;
}

TEST(LayerPermutation, TestsTheSeedMeansOfEachSeriesAgainstSAndDepth) {
  std::map<std::string, StudyTable> tables;
  // Layer 6 has no S (NaN): it is left out; layer 7 has S but no bridge.
  tables["layers_trace"] = {
      "",
      {"layer", "S"},
      {{1, 0.3}, {2, -1.0}, {3, 2.0}, {4, 0.5}, {5, 1.1}, {6, std::nan("")}, {7, 4.0}}};
  const std::vector<double> seed0 = {0.40, 0.45, 0.43, 0.50, 0.41, 0.47};
  const std::vector<double> seed1 = {0.42, 0.44, 0.40, 0.52, 0.45, 0.46};
  std::vector<StudyRunResult> runs;
  for (size_t i = 0; i < seed0.size(); ++i) {
    const std::string arm = "gaussian-l" + std::to_string(i + 1);
    runs.push_back(bridgeRun(arm, 0, seed0[i]));
    runs.push_back(bridgeRun(arm, 1, seed1[i]));
  }
  runs.push_back(bridgeRun("gaussian-lx", 0, 9.0));  // not a layer
  runs.push_back(bridgeRun("bridge-l1", 0, 0.4));    // a series of two layers: left out
  runs.push_back(bridgeRun("bridge-l2", 0, 0.5));
  const auto out =
      layerPermutationTests(tables, runs, {{"gaussian", "gaussian-l"}, {"bridge", "bridge-l"}},
                            {"trace", "standardise"}, 20, 5000);

  const std::vector<double> s{0.3, -1.0, 2.0, 0.5, 1.1};
  std::vector<double> negativeMean, depth;
  for (size_t i = 0; i < 5; ++i) {
    negativeMean.push_back(-(seed0[i] + seed1[i]) / 2);
    depth.push_back(double(i + 1));
  }
  const geometry::RankPermutationTest expected =
      geometry::rankPermutationTest(s, negativeMean, depth, 5000, 20);
  EXPECT_DOUBLE_EQ(out.at("perm_rho_gaussian_trace"), expected.rho);
  EXPECT_DOUBLE_EQ(out.at("perm_p_rho_gaussian_trace"), expected.rhoGreater);
  EXPECT_DOUBLE_EQ(out.at("perm_p2_rho_gaussian_trace"), expected.rhoTwoSided);
  EXPECT_DOUBLE_EQ(out.at("perm_partial_rho_gaussian_trace"), expected.partialRho);
  EXPECT_DOUBLE_EQ(out.at("perm_p_partial_rho_gaussian_trace"), expected.partialGreater);
  EXPECT_DOUBLE_EQ(out.at("perm_p2_partial_rho_gaussian_trace"), expected.partialTwoSided);
  EXPECT_EQ(out.size(), 6u) << "no bridge series (2 layers), no standardise table";
  // Every key given is declared, with a label.
  const auto metrics = layerPermutationMetrics({{"gaussian", "gaussian-l"}}, {"trace"});
  for (const auto& [key, value] : out)
    EXPECT_TRUE(std::any_of(metrics.begin(), metrics.end(), [&](const StudyMetric& m) {
      return m.key == key;
    })) << key;
}

TEST(LayerPermutation, NamesThePBesideTheClaimsOnRankCorrelations) {
  StudyClaim partial("a", "", "partial_rho_gaussian_standardise", "sweep", "", "zero",
                     ClaimDirection::Higher, 0);
  reportPermutationBeside(partial, {{"gaussian", "gaussian-l"}, {"bridge", "bridge-l"}});
  EXPECT_EQ(partial.permutationP, "perm_p_partial_rho_gaussian_standardise");
  EXPECT_FALSE(partial.permutationDecides);
  StudyClaim toy("b", "", "partial_rho", "sweep", "", "zero", ClaimDirection::Higher, 0);
  reportPermutationBeside(toy, {{"", "bridge-l"}});
  EXPECT_EQ(toy.permutationP, "perm_p_partial_rho_trace");
  StudyClaim rho("c", "", "rho_s_bridge_trace", "sweep", "", "zero", ClaimDirection::Higher, 0);
  reportPermutationBeside(rho, {{"gaussian", "gaussian-l"}, {"bridge", "bridge-l"}});
  EXPECT_EQ(rho.permutationP, "perm_p_rho_bridge_trace");
  StudyClaim other("d", "", "converge_drop", "x", "", "zero", ClaimDirection::Lower, 0);
  reportPermutationBeside(other, {{"gaussian", "gaussian-l"}});
  EXPECT_TRUE(other.permutationP.empty());
}

TEST(LayerPermutation, PoolsTheLayersOfTwoStudiesAsStrata) {
  const auto study = [](const std::vector<double>& s, const std::vector<double>& loss) {
    PooledStudy p;
    p.tables["layers_standardise"] = {"", {"layer", "S"}, {}};
    for (size_t i = 0; i < s.size(); ++i) {
      p.tables["layers_standardise"].rows.push_back({double(i + 1), s[i]});
      p.runs.push_back(bridgeRun("gaussian-l" + std::to_string(i + 1), 0, loss[i]));
    }
    return p;
  };
  const PooledStudy first = study({0.3, -1.2, 2.5, 0.9}, {0.50, 0.41, 0.47, 0.45});
  const PooledStudy second = study({1.0, 3.0, -2.0, 0.5, 2.2}, {0.3, 0.2, 0.6, 0.1, 0.25});
  const auto out = pooledLayerPermutationTests({first, second}, {{"gaussian", "gaussian-l"}},
                                               {"standardise"}, 20, 3000);
  const geometry::RankSeries a{{0.3, -1.2, 2.5, 0.9}, {-0.50, -0.41, -0.47, -0.45}, {1, 2, 3, 4}};
  const geometry::RankSeries b{
      {1.0, 3.0, -2.0, 0.5, 2.2}, {-0.3, -0.2, -0.6, -0.1, -0.25}, {1, 2, 3, 4, 5}};
  const geometry::PooledPermutationTest expected =
      geometry::pooledPartialPermutationTest({a, b}, 3000, 20);
  EXPECT_DOUBLE_EQ(out.at("pooled_partial_rho_gaussian_standardise"), expected.statistic);
  EXPECT_DOUBLE_EQ(out.at("pooled_p_partial_rho_gaussian_standardise"), expected.greater);
  // A study pooled with itself: T is its own partial ρ.
  const auto self = pooledLayerPermutationTests({second, second}, {{"gaussian", "gaussian-l"}},
                                                {"standardise"}, 20, 100);
  EXPECT_NEAR(self.at("pooled_partial_rho_gaussian_standardise"),
              geometry::rankPermutationTest(b.x, b.y, b.z, 1, 0).partialRho, 1e-12);
  // A study with too few layers leaves the series out.
  const PooledStudy tiny = study({1.0, 2.0}, {0.1, 0.2});
  EXPECT_TRUE(pooledLayerPermutationTests({first, tiny}, {{"gaussian", "gaussian-l"}},
                                          {"standardise"}, 20, 100)
                  .empty());
}

TEST(LayerPermutation, TheSmolLM2RecordAgreesWithAnIndependentReference) {
  const std::filesystem::path record = STRATA_SOURCE_DIR "/docs/studies/dihal-pretrained.json";
  std::string why;
  const std::string python = testing::findPython(
      {"numpy", "scipy"}, "run scripts/setup.sh (Strata's Python environment)", why);
  ASSERT_FALSE(python.empty()) << "cannot run the reference: " << why;
  const std::string command =
      python + " '" STRATA_SOURCE_DIR "/tests/python/layer_permutation_reference.py' '" +
      record.string() + "' gaussian bridge";
  const std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  ASSERT_TRUE(pipe) << command;
  std::map<std::string, double> reference;
  char line[256];
  while (fgets(line, sizeof line, pipe.get())) {
    std::istringstream in(line);
    std::string key;
    double value = 0;
    if (in >> key >> value) reference[key] = value;
  }
  ASSERT_EQ(reference.size(), 36u) << command;  // 2 series × 3 normalisations × 6 statistics

  const StudyReport report = readStudyReportFile(record);
  const auto out = layerPermutationTests(report.tables, recordedRuns(report),
                                         {{"gaussian", "gaussian-l"}, {"bridge", "bridge-l"}},
                                         {"trace", "none", "standardise"}, 20);
  for (const auto& [key, value] : reference) {
    ASSERT_TRUE(out.count(key)) << key;
    // Both draw 100,000 reorderings: p within 0.01 (4.5 sd of the difference at p = 0.5).
    const bool isP = key.rfind("perm_p", 0) == 0;
    EXPECT_NEAR(out.at(key), value, isP ? 0.01 : 1e-9) << key;
  }
  // What the SmolLM2 study's only positive reading comes to over its 13 layers.
  EXPECT_GT(out.at("perm_p_partial_rho_gaussian_standardise"), 0.05);
}

}  // namespace
}  // namespace strata::studies
