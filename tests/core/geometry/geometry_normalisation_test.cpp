// The normalisation choice (DESIGN.md, docs/geometry.md "Normalisation"): none, trace,
// standardise; which combinations make two terms of S cancel, checked numerically; units under
// `none`; constant dimensions under `standardise`.

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "common/error.h"
#include "geometry/backend.h"
#include "geometry/layer_geometry.h"
#include "geometry/metric_series.h"
#include "geometry/score.h"
#include "geometry/term_cancellation.h"

namespace strata::geometry {
namespace {

/** N×d Gaussian rows with column j scaled by scale·(j + 1)^(−power) and shifted by 3. */
std::vector<float> anisotropicRows(int64_t n, int64_t d, double power, double scale,
                                   uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::normal_distribution<double> normal;
  std::vector<float> rows(n * d);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < d; ++j)
      rows[i * d + j] = float(3.0 + scale * normal(engine) * std::pow(j + 1.0, -power));
  return rows;
}

ProxyOptions quickOptions(Normalisation normalisation, MonotonicityMode mode) {
  ProxyOptions o;
  o.anchors = 128;
  o.neighbours = 8;
  o.directions = 256;
  o.bootstrapResamples = 0;
  o.normalisation = normalisation;
  o.monotonicity = mode;
  return o;
}

ProxyValues proxiesOf(const std::vector<float>& rows, int64_t n, int64_t d,
                      const ProxyOptions& options) {
  auto backend = makeCpuBackend();
  return computeLayerGeometry(*backend, {rows.data(), n, d}, 0, options).values;
}

TEST(GeometryNormalisation, NamesRoundTrip) {
  for (Normalisation m : {Normalisation::None, Normalisation::Trace, Normalisation::Standardise})
    EXPECT_EQ(parseNormalisation(normalisationName(m)), m);
  EXPECT_STREQ(normalisationName(Normalisation::Standardise), "standardise");
  // The documented default since the Gemma-3 replication (docs/geometry.md).
  EXPECT_EQ(ProxyOptions{}.normalisation, Normalisation::Standardise);
  EXPECT_THROW(parseNormalisation("standardize"), ConfigError);
}

// The claim behind the warning, measured: with min-eig, log m_mono − log k_eff = −log tr(Σ)
// up to ε, and tr(Σ) = d under `trace` and `standardise` on every layer.
TEST(GeometryNormalisation, TraceMinEigMonotonicityIsEffectiveRankOverD) {
  const int64_t n = 1500, d = 16;
  for (double power : {0.0, 0.5, 1.5}) {
    const auto rows = anisotropicRows(n, d, power, 7.0, 1);
    for (Normalisation m : {Normalisation::Trace, Normalisation::Standardise}) {
      const ProxyValues v = proxiesOf(rows, n, d, quickOptions(m, MonotonicityMode::MinEigenvalue));
      // ε = 1e-3·tr/d and λ_max ≥ tr/d, so the gap is at most log(1 + 1e-3).
      EXPECT_NEAR(std::log(v.monotonicity), std::log(v.effectiveRank) - std::log(double(d)), 1e-3)
          << normalisationName(m) << ", power " << power;
    }
  }
}

// Under `none` the same identity reads log m_mono = log k_eff − log tr(Σ_raw), and tr(Σ_raw)
// differs between layers, so the terms do not cancel: m_mono and m_curv carry the scale.
TEST(GeometryNormalisation, NoneKeepsTheScaleInCurvatureAndMonotonicity) {
  const int64_t n = 1200, d = 12;
  const auto small = anisotropicRows(n, d, 1.0, 1.0, 2);
  const auto large = anisotropicRows(n, d, 1.0, 4.0, 2);  // the same shape, 4× the norm
  for (MonotonicityMode mode : {MonotonicityMode::Rayleigh, MonotonicityMode::MinEigenvalue}) {
    const auto o = quickOptions(Normalisation::None, mode);
    const ProxyValues a = proxiesOf(small, n, d, o), b = proxiesOf(large, n, d, o);
    EXPECT_NEAR(b.curvature / a.curvature, 1.0 / 16.0, 1e-3);
    EXPECT_NEAR(b.monotonicity / a.monotonicity, 1.0 / 16.0, 1e-3);
    EXPECT_NEAR(b.effectiveRank / a.effectiveRank, 1.0, 1e-4);
    // Scale-free under `trace`.
    const auto t = quickOptions(Normalisation::Trace, mode);
    EXPECT_NEAR(proxiesOf(large, n, d, t).monotonicity / proxiesOf(small, n, d, t).monotonicity,
                1.0, 1e-4);
  }
  // min-eig under none: log m_mono − log k_eff = −log tr(Σ_raw), which moves with the scale.
  const auto o = quickOptions(Normalisation::None, MonotonicityMode::MinEigenvalue);
  const ProxyValues a = proxiesOf(small, n, d, o), b = proxiesOf(large, n, d, o);
  EXPECT_NEAR((std::log(a.monotonicity) - std::log(a.effectiveRank)) -
                  (std::log(b.monotonicity) - std::log(b.effectiveRank)),
              std::log(16.0), 1e-3);
}

// Under `none`, huge entries are rescaled by an exact power of two before the backend runs;
// the reported values must be in the input's units all the same.
TEST(GeometryNormalisation, NoneReportsTheInputsUnitsForHugeValues) {
  const int64_t n = 800, d = 8;
  const auto rows = anisotropicRows(n, d, 0.5, 1.0, 3);
  std::vector<float> huge(rows);
  const double factor = std::ldexp(1.0, 40);
  for (float& v : huge) v = float(double(v) * factor);
  ProxyOptions o = quickOptions(Normalisation::None, MonotonicityMode::Rayleigh);
  o.bootstrapResamples = 3;
  auto backend = makeCpuBackend();
  const LayerGeometry a = computeLayerGeometry(*backend, {rows.data(), n, d}, 0, o);
  const LayerGeometry b = computeLayerGeometry(*backend, {huge.data(), n, d}, 0, o);
  EXPECT_NEAR(b.values.curvature * factor * factor / a.values.curvature, 1.0, 1e-4);
  EXPECT_NEAR(b.values.monotonicity * factor * factor / a.values.monotonicity, 1.0, 1e-4);
  EXPECT_NEAR(b.curvature.high * factor * factor / a.curvature.high, 1.0, 1e-4);
  EXPECT_NEAR(b.spectrum.front() / (factor * factor) / a.spectrum.front(), 1.0, 1e-4);
}

TEST(GeometryNormalisation, StandardiseGivesUnitVariancesAndLeavesConstantDimensionsAtZero) {
  const int64_t n = 1000, d = 10;
  auto rows = anisotropicRows(n, d, 2.0, 5.0, 4);
  auto backend = makeCpuBackend();
  ProxyOptions o = quickOptions(Normalisation::Standardise, MonotonicityMode::Rayleigh);
  o.spectrumSize = d;
  LayerGeometry g = computeLayerGeometry(*backend, {rows.data(), n, d}, 0, o);
  double trace = 0;
  for (double l : g.spectrum) trace += l;
  EXPECT_NEAR(trace, double(d), 1e-3);
  EXPECT_TRUE(g.warnings.empty());

  for (int64_t i = 0; i < n; ++i) rows[i * d + 3] = 2.5f;  // a constant dimension
  g = computeLayerGeometry(*backend, {rows.data(), n, d}, 0, o);
  trace = 0;
  for (double l : g.spectrum) trace += l;
  EXPECT_NEAR(trace, double(d - 1), 1e-3);
  ASSERT_EQ(g.warnings.size(), 1u);
  EXPECT_EQ(g.warnings[0].proxy, "normalisation");
  EXPECT_FALSE(g.warnings[0].undefined);
  EXPECT_NE(g.warnings[0].reason.find("1 of 10 dimensions have zero variance"), std::string::npos)
      << g.warnings[0].reason;
  EXPECT_TRUE(isDefined(g.values.curvature));
  EXPECT_TRUE(isDefined(g.values.monotonicity));
}

// The warning appears exactly for the combinations whose terms cancel, and the cancellation is
// real: with trace + min-eig, S equals the curvature-only score up to ε.
TEST(GeometryNormalisation, WarnsExactlyWhenTwoTermsCancel) {
  for (Normalisation n : {Normalisation::None, Normalisation::Trace, Normalisation::Standardise})
    for (MonotonicityMode m : {MonotonicityMode::Rayleigh, MonotonicityMode::MinEigenvalue}) {
      const bool cancels = m == MonotonicityMode::MinEigenvalue && n != Normalisation::None;
      EXPECT_EQ(!cancellingTermsWarning(n, m, {}).empty(), cancels)
          << normalisationName(n) << " + " << monotonicityModeName(m);
    }
  // Either weight at 0: nothing cancels. Unequal weights: one merged term, said so.
  EXPECT_TRUE(
      cancellingTermsWarning(Normalisation::Trace, MonotonicityMode::MinEigenvalue, {1, 0, 1})
          .empty());
  EXPECT_NE(cancellingTermsWarning(Normalisation::Trace, MonotonicityMode::MinEigenvalue, {1, 2, 1})
                .find("one term"),
            std::string::npos);

  const int64_t n = 1200, d = 12;
  std::vector<int64_t> layers;
  std::vector<ProxyValues> trace, none;
  for (int64_t l = 0; l < 4; ++l) {
    // Layers of growing anisotropy and norm, as a residual stream.
    const auto rows = anisotropicRows(n, d, 0.4 * double(l), 1.0 + double(l), 10 + l);
    layers.push_back(l);
    trace.push_back(
        proxiesOf(rows, n, d, quickOptions(Normalisation::Trace, MonotonicityMode::MinEigenvalue)));
    none.push_back(
        proxiesOf(rows, n, d, quickOptions(Normalisation::None, MonotonicityMode::MinEigenvalue)));
  }
  const LayerRange all{0, 3};
  const auto full = scoreLayers(layers, proxySeries(trace), {}, all);
  const auto curvatureOnly = scoreLayers(layers, proxySeries(trace), {1, 0, 0}, all);
  for (size_t i = 0; i < layers.size(); ++i)
    EXPECT_NEAR(full.score[i], curvatureOnly.score[i], 1e-2);
  // Under none the terms do not cancel: S differs from the curvature-only score.
  const auto fullNone = scoreLayers(layers, proxySeries(none), {}, all);
  const auto curvatureNone = scoreLayers(layers, proxySeries(none), {1, 0, 0}, all);
  double gap = 0;
  for (size_t i = 0; i < layers.size(); ++i)
    gap = std::max(gap, std::abs(fullNone.score[i] - curvatureNone.score[i]));
  EXPECT_GT(gap, 0.1);
}

}  // namespace
}  // namespace strata::geometry
