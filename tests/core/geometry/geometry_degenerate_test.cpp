// Degenerate layers (docs/geometry.md, "Degenerate layers"): each case gives the value its
// definition gives — a closed form where one exists — or kUndefined with a warning naming the
// proxy and the reason; nothing throws, and no NaN reaches S(l).

#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "common/job.h"
#include "geometry/geometry_report.h"
#include "geometry/layer_geometry.h"
#include "geometry/layer_screening.h"
#include "geometry/median.h"
#include "geometry/metric_series.h"
#include "geometry/score.h"
#include "io/store/activation_store.h"
#include "support/degenerate_store_fixture.h"
#include "support/temp_dir.h"

namespace strata::geometry {
namespace {

ProxyOptions smallOptions(int64_t anchors = 60, int64_t k = 8, int64_t resamples = 4) {
  ProxyOptions o;
  o.normalisation = Normalisation::Trace;  // the closed forms below are trace's
  o.anchors = anchors;
  o.neighbours = k;
  o.directions = 80;
  o.spectrumSize = 4;
  o.bootstrapResamples = resamples;
  o.seed = 5;
  return o;
}

LayerGeometry compute(const std::vector<float>& rows, int64_t d, const ProxyOptions& options) {
  auto backend = makeCpuBackend();
  return computeLayerGeometry(*backend, {rows.data(), int64_t(rows.size()) / d, d}, 7, options);
}

/** The warnings of `g` about `proxy`. */
std::vector<ProxyWarning> about(const LayerGeometry& g, const std::string& proxy) {
  std::vector<ProxyWarning> out;
  for (const auto& w : g.warnings)
    if (w.proxy == proxy) out.push_back(w);
  return out;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

void expectAllUndefined(const LayerGeometry& g) {
  for (double v : {g.values.curvature, g.values.monotonicity, g.values.effectiveRank,
                   g.curvature.low, g.curvature.high, g.monotonicity.low, g.monotonicity.high,
                   g.effectiveRank.low, g.effectiveRank.high})
    EXPECT_FALSE(isDefined(v));
}

// (a) Rank r = 2 ≪ d = 16 and r ≪ k = 8: N points equally spaced on a circle in the first two
// coordinates. Σ = (d/2)·I on the circle's plane, so k_eff = d/(d/2) = 2 and every u lies in the
// plane: R(u) = 1/(d/2 + ε). Every anchor sees the same neighbourhood (offsets ±1…±4 along the
// circle), whose 2×2 covariance is computed here from its definition.
TEST(DegenerateLayers, RankDeficientLayerHasTheClosedFormValuesAndNoWarning) {
  const int64_t n = 240, d = 16, k = 8;
  const double pi = std::numbers::pi;
  std::vector<float> rows(size_t(n * d), 0.0f);
  for (int64_t i = 0; i < n; ++i) {
    rows[size_t(i * d)] = float(std::cos(2 * pi * double(i) / double(n)));
    rows[size_t(i * d + 1)] = float(std::sin(2 * pi * double(i) / double(n)));
  }
  const LayerGeometry g = compute(rows, d, smallOptions(60, k, 4));
  EXPECT_TRUE(g.warnings.empty()) << g.warnings.front().text();
  EXPECT_NEAR(g.values.effectiveRank, 2.0, 1e-5);
  EXPECT_NEAR(g.values.monotonicity, 1.0 / (d / 2.0 + 1e-3), 1e-6);
  // Normalised radius: tr Σ_raw = n/(n−1) for the unit circle, so R² = d(n−1)/n.
  const double radius = std::sqrt(double(d) * double(n - 1) / double(n));
  Eigen::MatrixXd points(k, 2);
  int r = 0;
  for (int offset : {-4, -3, -2, -1, 1, 2, 3, 4}) {
    points(r, 0) = radius * std::cos(2 * pi * offset / double(n));
    points(r++, 1) = radius * std::sin(2 * pi * offset / double(n));
  }
  const Eigen::MatrixXd centred = points.rowwise() - points.colwise().mean();
  const Eigen::Matrix2d c = centred.transpose() * centred / double(k - 1);
  const double lambda = Eigen::SelfAdjointEigenSolver<Eigen::Matrix2d>(c).eigenvalues().maxCoeff();
  EXPECT_NEAR(g.values.curvature * lambda, 1.0, 1e-3);
  for (double v : {g.curvature.low, g.curvature.high, g.monotonicity.low, g.effectiveRank.high})
    EXPECT_TRUE(isDefined(v));
}

// (b) tr(Σ) = 0: the normalisation s = sqrt(d / tr Σ_raw) divides by zero.
TEST(DegenerateLayers, ConstantLayerIsUndefinedWithAWarningInsteadOfAnError) {
  const std::vector<float> rows(100 * 4, 3.0f);
  LayerGeometry g;
  ASSERT_NO_THROW(g = compute(rows, 4, smallOptions()));
  expectAllUndefined(g);
  ASSERT_EQ(g.warnings.size(), 1u);
  EXPECT_EQ(g.warnings[0].proxy, "all");
  EXPECT_TRUE(g.warnings[0].undefined);
  EXPECT_EQ(g.warnings[0].layer, 7);
  EXPECT_TRUE(contains(g.warnings[0].reason, "all 100 rows are equal: tr(Σ) = 0"))
      << g.warnings[0].reason;
  EXPECT_TRUE(g.spectrum.empty());
  EXPECT_TRUE(g.localLambdaMax.empty());
}

TEST(DegenerateLayers, OneRowIsUndefined) {
  const std::vector<float> rows = {1, 2, 3};
  const LayerGeometry g = compute(rows, 3, smallOptions());
  expectAllUndefined(g);
  ASSERT_EQ(about(g, "all").size(), 1u);
  EXPECT_TRUE(contains(about(g, "all")[0].reason, "one row")) << about(g, "all")[0].reason;
}

/**
 * 200 rows in d = 4: `copies` rows are copies of 5 points far from the rest (copies/5 of each),
 * the others a Gaussian cloud. With k = 8 < copies/5 − 1 each copy's neighbourhood is its own
 * copies (λ_max(C_i) = 0); every other anchor's neighbours are cloud points (λ_max > 0).
 */
std::vector<float> duplicatedTokens(int copies) {
  const int64_t d = 4;
  std::mt19937 rng(3);
  std::normal_distribution<float> normal;
  std::vector<float> rows(size_t(200 * d));
  for (int64_t r = 0; r < 200; ++r)
    for (int64_t c = 0; c < d; ++c)
      rows[size_t(r * d + c)] =
          r < copies ? (c == 0 ? 100.0f * float(1 + r % 5) : 0.0f) : normal(rng);
  return rows;
}

// (c) More than half the anchors have zero-spread neighbourhoods: by the definition the median
// of 1/λ_max is +∞, so m_curv is undefined (never the floor's 1e12); m_mono and k_eff stand.
TEST(DegenerateLayers, MostlyDuplicatedTokensLeaveMCurvUndefined) {
  const LayerGeometry g = compute(duplicatedTokens(120), 4, smallOptions(200, 8, 4));
  ASSERT_EQ(g.localLambdaMax.size(), 200u);
  const auto zero = std::count_if(g.localLambdaMax.begin(), g.localLambdaMax.end(), zeroSpread);
  EXPECT_EQ(zero, 120);
  for (double lambda : g.localLambdaMax) EXPECT_TRUE(isDefined(lambda));  // floored, finite
  EXPECT_FALSE(isDefined(g.values.curvature));
  EXPECT_FALSE(isDefined(g.curvature.low));
  EXPECT_FALSE(isDefined(g.curvature.high));
  const auto w = about(g, "m_curv");
  ASSERT_EQ(w.size(), 1u);
  EXPECT_TRUE(w[0].undefined);
  EXPECT_TRUE(contains(w[0].reason, "120 of 200 anchors (60.0%) have zero-spread neighbourhoods"))
      << w[0].reason;
  EXPECT_TRUE(isDefined(g.values.monotonicity));
  EXPECT_TRUE(isDefined(g.values.effectiveRank));
}

// Fewer than half: the median lies among the defined neighbourhoods (the 1e12 of the 80 floored
// ones are the largest values and only shift the middle); the value stands with a warning.
TEST(DegenerateLayers, SomeDuplicatedTokensKeepMCurvWithAWarning) {
  const LayerGeometry g = compute(duplicatedTokens(80), 4, smallOptions(200, 8, 4));
  std::vector<double> inverse;
  for (double lambda : g.localLambdaMax)
    if (!zeroSpread(lambda)) inverse.push_back(1.0 / lambda);
  ASSERT_EQ(inverse.size(), 120u);
  std::sort(inverse.begin(), inverse.end());
  // 200 values, ascending: the 120 defined ones first; numpy's median = mean of #99 and #100.
  EXPECT_DOUBLE_EQ(g.values.curvature, (inverse[99] + inverse[100]) / 2);
  const auto w = about(g, "m_curv");
  ASSERT_EQ(w.size(), 1u);
  EXPECT_FALSE(w[0].undefined);
  EXPECT_TRUE(contains(w[0].reason, "80 of 200 anchors (40.0%)")) << w[0].reason;
}

// (d) Every proxy is invariant under H → cH (the normalisation divides c out); at c = 1e30 the
// entries' squares overflow float32, at 1e-30 they underflow it.
TEST(DegenerateLayers, HugeAndTinyNormsGiveTheProxiesOfTheUnscaledLayer) {
  std::mt19937 rng(9);
  std::normal_distribution<float> normal;
  const int64_t d = 8;
  std::vector<float> rows(size_t(300 * d));
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = normal(rng) * std::exp(-0.3f * float(i % d));
  const LayerGeometry reference = compute(rows, d, smallOptions());
  for (float scale : {1e30f, 1e-30f}) {
    std::vector<float> scaled = rows;
    for (float& x : scaled) x *= scale;
    const LayerGeometry g = compute(scaled, d, smallOptions());
    EXPECT_TRUE(g.warnings.empty()) << scale;
    EXPECT_NEAR(g.values.curvature / reference.values.curvature, 1.0, 1e-4) << scale;
    EXPECT_NEAR(g.values.monotonicity / reference.values.monotonicity, 1.0, 1e-4) << scale;
    EXPECT_NEAR(g.values.effectiveRank / reference.values.effectiveRank, 1.0, 1e-4) << scale;
    EXPECT_NEAR(g.effectiveRank.high / reference.effectiveRank.high, 1.0, 1e-4) << scale;
  }
}

TEST(DegenerateLayers, RescaleFactorIsAPowerOfTwoIntoOneToTwo) {
  EXPECT_EQ(rescaleFactor(1.0), 1.0);
  EXPECT_EQ(rescaleFactor(1e9), 1.0);  // inside [2^-32, 2^32]: left alone
  for (double m : {1e30, 3.4e38, 1e-30, 1e-12}) {
    const double p = rescaleFactor(m);
    int e = 0;
    EXPECT_EQ(std::frexp(p, &e), 0.5) << m;  // a power of two: exact in float32
    EXPECT_GE(m * p, 1.0) << m;
    EXPECT_LT(m * p, 2.0) << m;
  }
}

// (e) N = 6 < k + 1 = 9: m_curv is undefined; Σ of ±e1, ±e2, ±e3 normalises to I, so
// k_eff = 3 and R(u) = 1/(1 + ε) for every u. The bootstrap does not throw either.
TEST(DegenerateLayers, TooFewRowsForTheNeighboursLeaveOnlyMCurvUndefined) {
  const std::vector<float> rows = {1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1};
  LayerGeometry g;
  ASSERT_NO_THROW(g = compute(rows, 3, smallOptions(60, 8, 20)));
  EXPECT_FALSE(isDefined(g.values.curvature));
  EXPECT_FALSE(isDefined(g.curvature.high));
  const auto w = about(g, "m_curv");
  ASSERT_GE(w.size(), 1u);
  EXPECT_TRUE(w[0].undefined);
  EXPECT_TRUE(
      contains(w[0].reason, "needs at least k + 1 = 9 rows for k = 8 neighbours; the layer has 6"))
      << w[0].reason;
  EXPECT_NEAR(g.values.effectiveRank, 3.0, 1e-5);
  EXPECT_NEAR(g.values.monotonicity, 1.0 / (1.0 + 1e-3), 1e-6);
  for (double v :
       {g.effectiveRank.low, g.effectiveRank.high, g.monotonicity.low, g.monotonicity.high})
    EXPECT_TRUE(isDefined(v));
}

// (f) A store written by another tool can hold NaN or Inf: no proxy on corrupt hidden states.
TEST(DegenerateLayers, NonFiniteValuesLeaveEveryProxyUndefined) {
  std::vector<float> rows(50 * 3, 0.0f);
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = float(i % 7) - float(i % 3);
  rows[4] = std::numeric_limits<float>::quiet_NaN();
  rows[40] = -std::numeric_limits<float>::infinity();
  const LayerGeometry g = compute(rows, 3, smallOptions());
  expectAllUndefined(g);
  const auto w = about(g, "all");
  ASSERT_EQ(w.size(), 1u);
  EXPECT_TRUE(contains(w[0].reason, "2 NaN or infinite values in 2 of 50 rows (4.0%)"))
      << w[0].reason;
}

// Every sampled pair joins two copies of one row (u = 0): m_mono's Rayleigh form has no
// direction. Rows: 399 copies of one point and one other point, so Σ has rank 1 (k_eff = 1).
TEST(DegenerateLayers, OnlyIdenticalPairsLeaveMMonoUndefined) {
  std::vector<float> rows(400 * 2, 1.0f);
  rows[399 * 2] = 5.0f;
  ProxyOptions options = smallOptions(10, 4, 0);
  options.directions = 3;
  const TokenSampling sampling = drawTokenSampling(400, {}, options, options.seed);
  for (const auto& [a, b] : sampling.pairs)
    ASSERT_TRUE(a != 399 && b != 399) << "seed precondition";
  const LayerGeometry g = compute(rows, 2, options);
  EXPECT_FALSE(isDefined(g.values.monotonicity));
  const auto w = about(g, "m_mono");
  ASSERT_EQ(w.size(), 1u);
  EXPECT_TRUE(contains(w[0].reason, "every one of the 3 sampled pairs joins two identical rows"));
  EXPECT_NEAR(g.values.effectiveRank, 1.0, 1e-6);
}

// S(l): z over the defined candidates only, the undefined one left out of l* with a warning.
TEST(DegenerateLayers, ScoreSkipsUndefinedLayersAndStaysFinite) {
  const std::vector<int64_t> layers{0, 1, 2, 3, 4};
  std::vector<ProxyValues> values{{1, 1, 1}, {2, 4, 8}, {kUndefined, 2, 3}, {1, 2, 2}, {4, 1, 4}};
  const LayerScores s = scoreLayers(layers, proxySeries(values), {}, {1, 4});
  const LayerScores without =
      scoreLayers({1, 3, 4}, proxySeries({values[1], values[3], values[4]}), {}, {1, 4});
  EXPECT_FALSE(isDefined(s.score[2]));
  EXPECT_EQ(s.rank[2], 0);
  for (size_t i : {1u, 3u, 4u}) EXPECT_TRUE(isDefined(s.score[i]));
  EXPECT_DOUBLE_EQ(s.score[1], without.score[0]);
  EXPECT_DOUBLE_EQ(s.score[3], without.score[1]);
  EXPECT_DOUBLE_EQ(s.score[4], without.score[2]);
  ASSERT_EQ(s.warnings.size(), 1u);  // layer 0 is no candidate: nothing to say about it
  EXPECT_EQ(s.warnings[0],
            (ProxyWarning{2, "S", "left out of S and l*: m_curv is undefined", true}));
}

TEST(DegenerateLayers, HugePluginValuesDoNotOverflowTheZScores) {
  const std::vector<int64_t> layers{1, 2, 3};
  // Constant proxies (z = 0) and one plugin metric of weight 1.
  std::vector<MetricSeries> series = proxySeries(std::vector<ProxyValues>(3, {1, 1, 1}));
  series.push_back(pluginMetricSeries({"huge", "", true, ""}, {1e300, 0, -1e300}));
  const ScoreWeights weights{1, 1, 1, 1};
  const LayerScores s = scoreLayers(layers, series, weights, {1, 3});
  // z of (a, 0, −a) with the population sd a·sqrt(2/3): ±sqrt(3/2).
  EXPECT_NEAR(s.score[0], std::sqrt(1.5), 1e-12);
  EXPECT_NEAR(s.score[1], 0.0, 1e-12);
  EXPECT_NEAR(s.score[2], -std::sqrt(1.5), 1e-12);
  // Rescaling keeps the "constant up to rounding" threshold of the unscaled series: tiny
  // differences of tiny values (1e-15 apart) still carry no ranking.
  std::vector<MetricSeries> tiny = series;
  tiny.back() = pluginMetricSeries({"tiny", "", true, ""}, {1e-15, 2e-15, 3e-15});
  for (double score : scoreLayers(layers, tiny, weights, {1, 3}).score) EXPECT_EQ(score, 0.0);
  series.back().values[1] = std::numeric_limits<double>::infinity();
  const LayerScores excluded = scoreLayers(layers, series, weights, {1, 3});
  ASSERT_EQ(excluded.warnings.size(), 1u);
  EXPECT_EQ(excluded.warnings[0].reason, "left out of S and l*: plugin metric huge is undefined");
}

/** A plugin metric that returns a fixed value, to check what the scan makes of it. */
class FixedMetric final : public LayerMetric {
 public:
  explicit FixedMetric(double value) : m_value(value) { m_info.name = "fixed"; }
  const MetricInfo& info() const override { return m_info; }
  double compute(const HiddenStates&, const HiddenStates*) override { return m_value; }

 private:
  MetricInfo m_info;
  double m_value;
};

// The whole store: no degenerate layer ends the scan, S is finite on the defined candidates,
// and the warnings go into the store and come back.
TEST(DegenerateLayers, ScanOfADegenerateStoreFinishesAndKeepsItsWarnings) {
  TempDir dir;
  const auto file = dir / "acts.h5";
  testing::writeDegenerateStore(file);
  auto backend = makeCpuBackend();
  NullProgressSink sink;
  JobContext ctx(sink, CancellationToken());
  FixedMetric infinite(std::numeric_limits<double>::infinity());
  GeometryReport report;
  {
    const auto store = io::ActivationStore::open(file);  // closed before writeGeometry below
    ASSERT_NO_THROW(report = scanStore(store, *backend, smallOptions(), ctx, {}, {&infinite}));
  }
  ASSERT_EQ(report.layers.size(), 6u);

  EXPECT_FALSE(isDefined(report.layers[0].values.curvature));  // duplicated tokens
  EXPECT_TRUE(isDefined(report.layers[0].values.monotonicity));
  EXPECT_FALSE(isDefined(report.layers[2].values.effectiveRank));  // constant
  EXPECT_FALSE(isDefined(report.layers[4].values.effectiveRank));  // NaN and Inf
  // Huge norms: the proxies of the unscaled rows.
  std::vector<float> unscaled = testing::degenerateLayer(3);
  for (float& x : unscaled) x /= 1e30f;
  const LayerGeometry direct = computeLayerGeometry(
      *backend, {unscaled.data(), testing::kDegenerateTokens, testing::kDegenerateHidden}, 3,
      smallOptions());
  EXPECT_NEAR(report.layers[3].values.effectiveRank / direct.values.effectiveRank, 1.0, 1e-4);
  EXPECT_NEAR(report.layers[3].values.curvature / direct.values.curvature, 1.0, 1e-4);
  // The plugin's +Inf is undefined with a reason; on the undefined layers (2, 4) the plugin is
  // not run and their "all" warning explains its undefined value.
  for (const auto& l : report.layers) {
    ASSERT_EQ(l.pluginValues.size(), 1u);
    EXPECT_FALSE(isDefined(l.pluginValues[0]));
    const auto named = about(l, "fixed");
    const bool undefinedLayer = l.layer == 2 || l.layer == 4;
    ASSERT_EQ(named.size(), undefinedLayer ? 0u : 1u) << "layer " << l.layer;
    if (!undefinedLayer) {
      EXPECT_EQ(named[0].reason, "the plugin returned an infinite value");
    }
    EXPECT_EQ(about(l, "all").size(), undefinedLayer ? 1u : 0u) << "layer " << l.layer;
  }

  const LayerScores s = scoreLayers(report.layerIndices(), metricSeries(report), {},
                                    defaultCandidates(report.numLayers));
  for (size_t i = 0; i < s.score.size(); ++i)
    EXPECT_EQ(isDefined(s.score[i]), i == 1 || i == 3) << "layer " << i;
  EXPECT_EQ(s.bestIndex == 1 || s.bestIndex == 3, true);
  ASSERT_EQ(s.warnings.size(), 2u);
  EXPECT_EQ(s.warnings[0].layer, 2);
  EXPECT_EQ(s.warnings[1].layer, 4);

  writeGeometry(file, report);
  const auto stored = readGeometry(file);
  ASSERT_TRUE(stored.has_value());
  for (size_t i = 0; i < report.layers.size(); ++i)
    EXPECT_EQ(stored->layers[i].warnings, report.layers[i].warnings) << "layer " << i;
}

}  // namespace
}  // namespace strata::geometry
