// The CPU backend's proxies against what they must be: closed forms for Gaussian data with a
// known spectrum, exact values on hand-made point sets, invariance under the similarity
// transforms the normalisation removes, and row weights as multiplicities.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#include "geometry/backend.h"
#include "geometry/proxy_options.h"

namespace strata::geometry {
namespace {

/** Deterministic standard normals (Box–Muller on a 64-bit Mersenne twister). */
class Normals {
 public:
  explicit Normals(uint64_t seed) : m_engine(seed) {}
  double operator()() {
    const double u1 = (double(m_engine() >> 11) + 0.5) / 9007199254740992.0;
    const double u2 = double(m_engine() >> 11) / 9007199254740992.0;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
  }

 private:
  std::mt19937_64 m_engine;
};

/** A random d×d orthogonal matrix (Gram–Schmidt on Gaussian columns), row-major. */
std::vector<double> randomRotation(int64_t d, uint64_t seed) {
  Normals normal(seed);
  std::vector<double> q(d * d);
  for (double& v : q) v = normal();
  for (int64_t i = 0; i < d; ++i) {  // row i ⟂ rows < i, then unit length (twice for accuracy)
    for (int pass = 0; pass < 2; ++pass)
      for (int64_t j = 0; j < i; ++j) {
        double dot = 0;
        for (int64_t c = 0; c < d; ++c) dot += q[i * d + c] * q[j * d + c];
        for (int64_t c = 0; c < d; ++c) q[i * d + c] -= dot * q[j * d + c];
      }
    double norm = 0;
    for (int64_t c = 0; c < d; ++c) norm += q[i * d + c] * q[i * d + c];
    for (int64_t c = 0; c < d; ++c) q[i * d + c] /= std::sqrt(norm);
  }
  return q;
}

/** N rows drawn from N(offset, Q diag(λ) Qᵀ) with a random rotation Q. */
std::vector<float> gaussianRows(int64_t n, const std::vector<double>& lambda, uint64_t seed,
                                double offset = 3.0) {
  const int64_t d = static_cast<int64_t>(lambda.size());
  const std::vector<double> q = randomRotation(d, seed + 1);
  Normals normal(seed);
  std::vector<float> rows(n * d);
  std::vector<double> z(d);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < d; ++j) z[j] = normal() * std::sqrt(lambda[j]);
    for (int64_t c = 0; c < d; ++c) {
      double x = offset;
      for (int64_t j = 0; j < d; ++j) x += q[j * d + c] * z[j];
      rows[i * d + c] = static_cast<float>(x);
    }
  }
  return rows;
}

/** The population spectrum normalised to trace d (what the proxies see). */
std::vector<double> normalisedSpectrum(std::vector<double> lambda) {
  const double total = std::accumulate(lambda.begin(), lambda.end(), 0.0);
  for (double& l : lambda) l *= double(lambda.size()) / total;
  std::sort(lambda.rbegin(), lambda.rend());
  return lambda;
}

/**
 * E[uᵀ(Σ+εI)⁻¹u / uᵀu] for u ~ N(0, Σ), Σ = diag(σ): with 1/Q = ∫₀^∞ e^{−tQ} dt,
 * E[σ_i z_i² e^{−t Σ σ_j z_j²}] = σ_i (1+2σ_i t)^{−1} Π_j (1+2σ_j t)^{−1/2}, so
 * E[R] = ∫₀^∞ Σ_i σ_i/((σ_i+ε)(1+2σ_i t)) Π_j (1+2σ_j t)^{−1/2} dt (t = eˣ, trapezoid).
 */
double expectedRayleigh(const std::vector<double>& sigma, double epsilon) {
  double sum = 0;
  const double step = 1e-3;
  for (double x = -40; x <= 40; x += step) {
    const double t = std::exp(x);
    double product = 1, inner = 0;
    for (double s : sigma) product /= std::sqrt(1 + 2 * s * t);
    for (double s : sigma) inner += s / ((s + epsilon) * (1 + 2 * s * t));
    sum += inner * product * t * step;
  }
  return sum;
}

ProxyResult compute(const std::vector<float>& rows, int64_t d, const ProxyOptions& options,
                    std::span<const float> weights = {}, const TokenSampling* sampling = nullptr) {
  const int64_t n = static_cast<int64_t>(rows.size()) / d;
  const TokenSampling drawn =
      sampling ? *sampling : drawTokenSampling(n, weights, options, options.seed);
  return makeCpuBackend()->computeProxies({rows.data(), n, d}, weights, drawn, options);
}

double relative(double a, double b) { return std::abs(a - b) / std::max(std::abs(b), 1e-300); }

ProxyOptions smallOptions() {
  ProxyOptions options;
  options.normalisation = Normalisation::Trace;  // what this test's expectations assume
  options.anchors = 64;
  options.neighbours = 8;
  options.bootstrapResamples = 0;
  return options;
}

const std::vector<double> kDecaying = {1.0,      1 / 2.0,  1 / 3.0,  1 / 4.0,  1 / 5.0,  1 / 6.0,
                                       1 / 7.0,  1 / 8.0,  1 / 9.0,  1 / 10.0, 1 / 11.0, 1 / 12.0,
                                       1 / 13.0, 1 / 14.0, 1 / 15.0, 1 / 16.0};

TEST(GeometryProxies, AnisotropicGaussianMatchesItsPopulationSpectrum) {
  const int64_t n = 50000, d = 16;
  const std::vector<float> rows = gaussianRows(n, kDecaying, 11);
  ProxyOptions options = smallOptions();
  options.spectrumSize = 16;
  options.directions = 8192;
  const ProxyResult result = compute(rows, d, options);
  const std::vector<double> sigma = normalisedSpectrum(kDecaying);
  ASSERT_EQ(result.spectrum.size(), 16u);
  for (size_t i = 0; i < 16; ++i)
    EXPECT_LT(relative(result.spectrum[i], sigma[i]), 0.03) << "eigenvalue " << i;
  // k_eff = Σλ/λ_max = H_16 for λ_i = 1/i.
  EXPECT_LT(relative(result.values.effectiveRank,
                     std::accumulate(kDecaying.begin(), kDecaying.end(), 0.0)),
            0.03);
  const double expected = expectedRayleigh(sigma, options.ridgeFactor);
  EXPECT_LT(relative(result.values.monotonicity, expected), 0.03)
      << "m_mono " << result.values.monotonicity << " vs closed form " << expected;
  // The closed form is far from the cruder alternatives a bug would produce.
  EXPECT_GT(relative(expected, 1.0 / (sigma[0] + 1e-3)), 0.5);
}

TEST(GeometryProxies, IsotropicGaussianFollowsMarchenkoPasturEdge) {
  const int64_t n = 40000, d = 16;
  const std::vector<float> rows = gaussianRows(n, std::vector<double>(d, 2.5), 12);
  const ProxyResult result = compute(rows, d, smallOptions());
  // Sample λ_max of an isotropic Gaussian sits near the Marchenko–Pastur edge (1 + √(d/N))².
  const double edge = std::pow(1 + std::sqrt(double(d) / n), 2);
  EXPECT_LT(relative(result.values.effectiveRank, d / edge), 0.02);
  EXPECT_LT(relative(result.values.monotonicity, 1.0 / (1 + 1e-3)), 0.02);
}

TEST(GeometryProxies, LanczosSpectrumOfASpikedModel) {
  // d = 200 with 10 eigenvalues asked: the Krylov space (21) is smaller than d, so Lanczos runs.
  const int64_t n = 40000, d = 200;
  std::vector<double> lambda(d, 1.0);
  lambda[0] = 40, lambda[1] = 20, lambda[2] = 10;
  const std::vector<float> rows = gaussianRows(n, lambda, 13);
  ProxyOptions options = smallOptions();
  options.spectrumSize = 10;
  const ProxyResult result = compute(rows, d, options);
  const std::vector<double> sigma = normalisedSpectrum(lambda);
  ASSERT_EQ(result.spectrum.size(), 10u);
  for (size_t i = 0; i < 3; ++i) EXPECT_LT(relative(result.spectrum[i], sigma[i]), 0.03) << i;
  EXPECT_TRUE(std::is_sorted(result.spectrum.rbegin(), result.spectrum.rend()));
  EXPECT_LT(relative(result.values.effectiveRank, 267.0 / 40.0), 0.03);
}

TEST(GeometryProxies, MinEigenvalueModeIsTheExactFormula) {
  const int64_t n = 3000, d = 16;
  const std::vector<float> rows = gaussianRows(n, kDecaying, 14);
  ProxyOptions options = smallOptions();
  options.monotonicity = MonotonicityMode::MinEigenvalue;
  options.ridgeFactor = 0.05;
  const ProxyResult result = compute(rows, d, options);
  const double trace = double(d);  // tr Σ = d after normalisation
  const double epsilon = 0.05 * trace / d;
  EXPECT_NEAR(result.values.monotonicity, 1.0 / (result.spectrum[0] + epsilon), 1e-6);
  EXPECT_NEAR(result.values.effectiveRank * result.spectrum[0], trace, 1e-3);
}

/** Points i·v, i = 0..N−1, on a line through R^8. */
std::vector<float> pointsOnALine(int64_t n, int64_t d) {
  std::vector<float> rows(n * d);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t c = 0; c < d; ++c)
      rows[i * d + c] = static_cast<float>(i * (c % 3 == 0 ? 1.0 : -0.5));
  return rows;
}

TEST(GeometryProxies, PointsOnALineAreExact) {
  const int64_t n = 100, d = 8;
  const std::vector<float> rows = pointsOnALine(n, d);
  ProxyOptions options;
  options.normalisation = Normalisation::Trace;  // what this test's expectations assume
  options.neighbours = 4;
  options.spectrumSize = 3;
  TokenSampling sampling;
  sampling.anchors = {10, 40, 77};
  sampling.pairs = {{0, 99}, {3, 4}, {50, 20}};
  const ProxyResult result = compute(rows, d, options, {}, &sampling);
  // Σ has rank one: all of tr Σ = d on one eigenvalue.
  EXPECT_NEAR(result.values.effectiveRank, 1.0, 1e-5);
  EXPECT_NEAR(result.spectrum[0], 8.0, 1e-4);
  EXPECT_NEAR(result.spectrum[1], 0.0, 1e-4);
  // Every u lies along the line: R(u) = 1/(d + ε) exactly.
  EXPECT_NEAR(result.values.monotonicity, 1.0 / (8.0 + 1e-3), 1e-6);
  // Interior anchor i: neighbours i±1, i±2 → variance (1+1+4+4)/3 in steps of the normalised
  // line, whose squared step is s² = d / Var(i) = 8 / (N(N+1)/12).
  const double step2 = 8.0 / (n * (n + 1) / 12.0);
  for (double lambda : result.localLambdaMax) EXPECT_NEAR(lambda / (step2 * 10.0 / 3.0), 1.0, 1e-5);
  EXPECT_NEAR(result.values.curvature, 1.0 / (step2 * 10.0 / 3.0), 1e-5 * result.values.curvature);
}

TEST(GeometryProxies, IdenticalNeighboursFloorTheLocalEigenvalue) {
  // Rows 0..3 are one point, the others spread: anchor 0's three neighbours coincide with it.
  const int64_t d = 2;
  std::vector<float> rows = {1, 1, 1, 1, 1, 1, 1, 1, 0, 5, 5, 0, -3, 2, 4, -1, 2, 2};
  ProxyOptions options;
  options.normalisation = Normalisation::Trace;  // what this test's expectations assume
  options.neighbours = 3;
  TokenSampling sampling{{0}, {{0, 5}}};
  const ProxyResult result = compute(rows, d, options, {}, &sampling);
  ASSERT_EQ(result.localLambdaMax.size(), 1u);
  EXPECT_EQ(result.localLambdaMax[0], 1e-12);
  EXPECT_EQ(result.values.curvature, 1e12);
}

TEST(GeometryProxies, InvariantUnderScalingRotationAndTranslation) {
  const int64_t n = 2000, d = 24;
  std::vector<double> lambda(d);
  for (int64_t i = 0; i < d; ++i) lambda[i] = std::exp(-0.2 * double(i));
  const std::vector<float> rows = gaussianRows(n, lambda, 21, 0.0);
  const std::vector<double> q = randomRotation(d, 99);
  std::vector<float> moved(rows.size());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t c = 0; c < d; ++c) {
      double x = 0;
      for (int64_t j = 0; j < d; ++j) x += q[c * d + j] * rows[i * d + j];
      moved[i * d + c] = static_cast<float>(37.5 * x + 100.0 + c);
    }
  ProxyOptions options;
  options.normalisation = Normalisation::Trace;  // what this test's expectations assume
  options.anchors = 200;
  options.neighbours = 16;
  options.spectrumSize = 8;
  const ProxyResult a = compute(rows, d, options);
  const ProxyResult b = compute(moved, d, options);
  EXPECT_LT(relative(b.values.curvature, a.values.curvature), 1e-4);
  EXPECT_LT(relative(b.values.monotonicity, a.values.monotonicity), 1e-4);
  EXPECT_LT(relative(b.values.effectiveRank, a.values.effectiveRank), 1e-4);
  for (size_t i = 0; i < a.spectrum.size(); ++i)
    EXPECT_LT(relative(b.spectrum[i], a.spectrum[i]), 1e-4);
  for (size_t i = 0; i < a.localLambdaMax.size(); ++i)
    EXPECT_LT(relative(b.localLambdaMax[i], a.localLambdaMax[i]), 1e-3) << "anchor " << i;
}

TEST(GeometryProxies, IntegerWeightsEqualMaterialisedDuplicates) {
  const int64_t n = 600, d = 12;
  const std::vector<float> rows =
      gaussianRows(n, std::vector<double>(kDecaying.begin(), kDecaying.begin() + d), 31);
  std::vector<float> weights(n);
  std::vector<float> duplicated;
  std::vector<int64_t> firstCopy(n, -1);
  for (int64_t i = 0; i < n; ++i) {
    weights[i] = float(i % 4);  // 0, 1, 2, 3
    for (int c = 0; c < int(weights[i]); ++c) {
      if (c == 0) firstCopy[i] = static_cast<int64_t>(duplicated.size()) / d;
      duplicated.insert(duplicated.end(), rows.begin() + i * d, rows.begin() + (i + 1) * d);
    }
  }
  ProxyOptions options = smallOptions();
  options.spectrumSize = 6;
  const TokenSampling weighted = drawTokenSampling(n, weights, options, 5);
  TokenSampling materialised;
  for (int64_t a : weighted.anchors) materialised.anchors.push_back(firstCopy[a]);
  for (const auto& [a, b] : weighted.pairs)
    materialised.pairs.emplace_back(firstCopy[a], firstCopy[b]);

  const ProxyResult w = compute(rows, d, options, weights, &weighted);
  const ProxyResult m = compute(duplicated, d, options, {}, &materialised);
  EXPECT_LT(relative(w.values.effectiveRank, m.values.effectiveRank), 1e-5);
  EXPECT_LT(relative(w.values.monotonicity, m.values.monotonicity), 1e-5);
  for (size_t i = 0; i < w.spectrum.size(); ++i)
    EXPECT_LT(relative(w.spectrum[i], m.spectrum[i]), 1e-5);
  options.monotonicity = MonotonicityMode::MinEigenvalue;
  EXPECT_LT(relative(compute(rows, d, options, weights, &weighted).values.monotonicity,
                     compute(duplicated, d, options, {}, &materialised).values.monotonicity),
            1e-5);
}

TEST(GeometryProxies, WeightedCurvatureEqualsCurvatureOnTheDistinctRows) {
  const int64_t n = 800, d = 10;
  const std::vector<float> rows =
      gaussianRows(n, std::vector<double>(kDecaying.begin(), kDecaying.begin() + d), 41);
  std::vector<float> weights(n);
  std::vector<float> distinct;
  std::vector<int64_t> position(n, -1);
  for (int64_t i = 0; i < n; ++i) {
    weights[i] = float((i * 7) % 5);  // 0..4
    if (weights[i] > 0) {
      position[i] = static_cast<int64_t>(distinct.size()) / d;
      distinct.insert(distinct.end(), rows.begin() + i * d, rows.begin() + (i + 1) * d);
    }
  }
  ProxyOptions options = smallOptions();
  const TokenSampling weighted = drawTokenSampling(n, weights, options, 8);
  TokenSampling plain;
  for (int64_t a : weighted.anchors) plain.anchors.push_back(position[a]);
  for (const auto& [a, b] : weighted.pairs) plain.pairs.emplace_back(position[a], position[b]);
  const ProxyResult w = compute(rows, d, options, weights, &weighted);
  const ProxyResult p = compute(distinct, d, options, {}, &plain);

  // Same neighbourhoods; only the normalising scale differs: λ(C_i) ∝ s² = d / tr(Σ_raw).
  const auto rawTrace = [&](const std::vector<float>& x, std::span<const float> wt) {
    const int64_t rowsIn = static_cast<int64_t>(x.size()) / d;
    double total = 0, sumSq = 0;
    std::vector<double> mean(d, 0.0);
    for (int64_t i = 0; i < rowsIn; ++i) {
      const double wi = wt.empty() ? 1.0 : wt[i];
      total += wi;
      for (int64_t c = 0; c < d; ++c) mean[c] += wi * x[i * d + c];
    }
    for (double& m : mean) m /= total;
    for (int64_t i = 0; i < rowsIn; ++i)
      for (int64_t c = 0; c < d; ++c) {
        const double v = x[i * d + c] - mean[c];
        sumSq += (wt.empty() ? 1.0 : wt[i]) * v * v;
      }
    return sumSq / (total - 1);
  };
  const double ratio = rawTrace(distinct, {}) / rawTrace(rows, weights);  // s_w² / s_p²
  ASSERT_EQ(w.localLambdaMax.size(), p.localLambdaMax.size());
  for (size_t i = 0; i < w.localLambdaMax.size(); ++i)
    EXPECT_LT(relative(w.localLambdaMax[i], p.localLambdaMax[i] * ratio), 1e-4) << "anchor " << i;
  EXPECT_LT(relative(w.values.curvature, p.values.curvature / ratio), 1e-4);
}

TEST(GeometryProxies, SkippingCurvatureLeavesTheOtherProxiesAlone) {
  const int64_t n = 500, d = 10;
  const std::vector<float> rows =
      gaussianRows(n, std::vector<double>(kDecaying.begin(), kDecaying.begin() + d), 53);
  ProxyOptions options = smallOptions();
  const ProxyResult full = compute(rows, d, options);
  options.curvature = false;
  const ProxyResult skipped = compute(rows, d, options);
  EXPECT_TRUE(std::isnan(skipped.values.curvature));
  EXPECT_TRUE(skipped.localLambdaMax.empty());
  EXPECT_EQ(skipped.values.monotonicity, full.values.monotonicity);
  EXPECT_EQ(skipped.values.effectiveRank, full.values.effectiveRank);
  EXPECT_EQ(skipped.spectrum, full.spectrum);
}

TEST(GeometryProxies, RefusesShapesTheOptionsCannotUse) {
  const int64_t d = 4;
  const std::vector<float> rows = gaussianRows(8, std::vector<double>(d, 1.0), 1);
  ProxyOptions options;
  options.normalisation = Normalisation::Trace;  // what this test's expectations assume
  options.neighbours = 8;                        // needs 9 rows
  auto backend = makeCpuBackend();
  const HiddenStates states{rows.data(), 8, d};
  TokenSampling sampling{{0, 1}, {{0, 1}}};
  EXPECT_THROW(backend->computeProxies(states, {}, sampling, options), std::invalid_argument);
  options.neighbours = 3;
  sampling.anchors = {8};
  EXPECT_THROW(backend->computeProxies(states, {}, sampling, options), std::invalid_argument);
  sampling.anchors = {1};
  sampling.pairs = {{0, -1}};
  EXPECT_THROW(backend->computeProxies(states, {}, sampling, options), std::invalid_argument);
  sampling.pairs = {{2, 2}};  // only a zero direction
  EXPECT_THROW(backend->computeProxies(states, {}, sampling, options), std::invalid_argument);
  sampling.pairs = {{2, 3}};
  std::vector<float> weights(8, 1.0f);
  weights[1] = 0;  // an anchor of weight 0
  EXPECT_THROW(backend->computeProxies(states, weights, sampling, options), std::invalid_argument);
  weights.pop_back();
  EXPECT_THROW(backend->computeProxies(states, weights, sampling, options), std::invalid_argument);
  const std::vector<float> constant(8 * d, 2.0f);
  EXPECT_THROW(backend->computeProxies({constant.data(), 8, d}, {}, sampling, options),
               std::invalid_argument);
  EXPECT_NO_THROW(backend->computeProxies(states, {}, sampling, options));
}

TEST(GeometryProxies, DescriptionNamesTheLibraries) {
  const std::string text = makeCpuBackend()->description();
  EXPECT_EQ(text.rfind("CPU: Eigen + Spectra + ", 0), 0u) << text;
  EXPECT_NE(text.find("thread"), std::string::npos) << text;
}

}  // namespace
}  // namespace strata::geometry
