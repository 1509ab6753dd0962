// The cka plugin (plugins/cka), loaded from the build tree and called through the C ABI:
// closed forms of linear CKA (Kornblith et al. 2019) and a NumPy reference of the sample-space
// HSIC form (tests/reference/plugin_metrics_reference.py).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "support/plugin_test_support.h"
#include "support/temp_dir.h"

namespace strata {
namespace {

using testing::gaussianMatrix;
using testing::runBuiltMetric;

double cka(const std::vector<float>& x, const std::vector<float>& y, int64_t n, int64_t d,
           int64_t dy = -1) {
  return runBuiltMetric("cka_prev", x, n, d, &y, dy < 0 ? d : dy);
}

TEST(CkaPlugin, DeclaresHigherIsBetterAndNoOptions) {
  const plugin::MetricEntry* m = testing::builtPlugins().findMetric("cka_prev");
  ASSERT_NE(m, nullptr) << "cka_prev not found in " STRATA_PLUGIN_BUILD_DIR;
  EXPECT_TRUE(m->info.higherIsBetter);
  EXPECT_TRUE(m->options.empty());
}

TEST(CkaPlugin, IsOneForALayerAndItself) {
  const auto x = gaussianMatrix(300, 20, 1);
  EXPECT_NEAR(cka(x, x, 300, 20), 1.0, 1e-12);
}

TEST(CkaPlugin, IsInvariantToOrthogonalTransformsIsotropicScalingAndShifts) {
  const int64_t n = 400, d = 24;
  auto x = gaussianMatrix(n, d, 2);
  for (int64_t i = 0; i < n; ++i) x[size_t(i * d)] *= 5;  // anisotropic, so the test can fail
  const auto y = testing::rotatedScaled(x, n, d, 0.01, 3);
  EXPECT_NEAR(cka(x, y, n, d), 1.0, 1e-5);
  const auto z = gaussianMatrix(n, d, 4);
  const auto zr = testing::rotatedScaled(z, n, d, 40.0, 5);
  EXPECT_NEAR(cka(x, z, n, d), cka(x, zr, n, d), 1e-5);
}

TEST(CkaPlugin, IsSmallForIndependentRandomMatrices) {
  // E[CKA] of independent Gaussians is ≈ sqrt(dx·dy)/n-ish: small for n ≫ d.
  const int64_t n = 2000, d = 16;
  const double value = cka(gaussianMatrix(n, d, 6), gaussianMatrix(n, d, 7), n, d);
  RecordProperty("independent", std::to_string(value));
  EXPECT_GT(value, 0.0);
  EXPECT_LT(value, 0.03);
}

TEST(CkaPlugin, IsUndefinedWithoutAPreviousLayer) {
  const auto x = gaussianMatrix(50, 4, 8);
  EXPECT_TRUE(std::isnan(runBuiltMetric("cka_prev", x, 50, 4)));
}

class CkaReference : public ::testing::TestWithParam<std::tuple<int64_t, int64_t, int64_t>> {};

// Both of the plugin's forms: d×d products when n ≥ d, n×n when n < d.
TEST_P(CkaReference, AgreesWithTheNumPyReference) {
  const auto [n, d, dy] = GetParam();
  const auto x = gaussianMatrix(n, d, 10 + uint64_t(n));
  auto y = gaussianMatrix(n, dy, 11 + uint64_t(n));
  for (int64_t i = 0; i < n; ++i)  // related to x, so the value is far from 0 and from 1
    for (int64_t j = 0; j < std::min(d, dy); ++j)
      y[size_t(i * dy + j)] += 0.7f * x[size_t(i * d + j)];
  TempDir dir;
  std::string why;
  const std::string text = testing::pluginReference(dir.path().string(), x, n, d, &y, dy, why);
  if (text.empty()) GTEST_SKIP() << "no reference: " << why;
  const double want = nlohmann::json::parse(text)["cka"];
  const double got = cka(x, y, n, d, dy);
  RecordProperty("cka", std::to_string(got));
  // The products run in float32 (linear_cka.cpp, "Precision"): 1e-6 relative, ~30× what they
  // give on these shapes.
  EXPECT_NEAR(got, want, 1e-6 * want) << "n=" << n << " d=" << d << " dy=" << dy;
}

INSTANTIATE_TEST_SUITE_P(Shapes, CkaReference,
                         ::testing::Values(std::tuple<int64_t, int64_t, int64_t>{500, 32, 32},
                                           std::tuple<int64_t, int64_t, int64_t>{60, 200, 200},
                                           std::tuple<int64_t, int64_t, int64_t>{300, 16, 40}));

// CKA straight from its definition (Kornblith et al. 2019, eq. 5): centre in double, then
// ‖YᵀX‖²_F / (‖XᵀX‖_F ‖YᵀY‖_F) with every entry of the d×d products summed out by loops.
double ckaFromDefinition(const std::vector<float>& x, int64_t dx, const std::vector<float>& y,
                         int64_t dy, int64_t n) {
  auto centred = [n](const std::vector<float>& m, int64_t d) {
    std::vector<double> out(m.begin(), m.end());
    for (int64_t k = 0; k < d; ++k) {
      double mean = 0;
      for (int64_t i = 0; i < n; ++i) mean += out[size_t(i * d + k)];
      mean /= double(n);
      for (int64_t i = 0; i < n; ++i) out[size_t(i * d + k)] -= mean;
    }
    return out;
  };
  const auto a = centred(x, dx), b = centred(y, dy);
  auto squaredCross = [n](const std::vector<double>& p, int64_t dp, const std::vector<double>& q,
                          int64_t dq) {
    double s = 0;
    for (int64_t i = 0; i < dp; ++i)
      for (int64_t j = 0; j < dq; ++j) {
        double c = 0;
        for (int64_t r = 0; r < n; ++r) c += p[size_t(r * dp + i)] * q[size_t(r * dq + j)];
        s += c * c;
      }
    return s;
  };
  return squaredCross(a, dx, b, dy) /
         std::sqrt(squaredCross(a, dx, a, dx) * squaredCross(b, dy, b, dy));
}

class CkaDefinition : public ::testing::TestWithParam<std::tuple<int64_t, int64_t, int64_t>> {};

// Needs no Python. The plugin takes n×n Grams when n < dx + dy, else one (dx+dy)² Gram; the
// shapes take both, including n between max(dx, dy) and dx + dy.
TEST_P(CkaDefinition, AgreesWithTheDefinitionInBothForms) {
  const auto [n, dx, dy] = GetParam();
  auto x = gaussianMatrix(n, dx, 30 + uint64_t(dx));
  auto y = gaussianMatrix(n, dy, 31 + uint64_t(dy));
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < dx; ++j) x[size_t(i * dx + j)] += 2.0f + 0.01f * float(j);  // offsets
    for (int64_t j = 0; j < std::min(dx, dy); ++j)
      y[size_t(i * dy + j)] += 0.7f * x[size_t(i * dx + j)];
  }
  const double want = ckaFromDefinition(x, dx, y, dy, n);
  EXPECT_GT(want, 0.05);
  EXPECT_LT(want, 0.95);
  EXPECT_NEAR(cka(x, y, n, dx, dy), want, 1e-6 * want) << "n=" << n << " dx=" << dx << " dy=" << dy;
}

// Residual streams carry per-dimension offsets hundreds of times their spread (SmolLM2's reach
// ~1,900). The float32 products hold 1e-6 there only because they multiply centred values: an
// uncentred Gram less n·x̄x̄ᵀ, or no centring at all, loses every digit.
TEST(CkaPlugin, CentresLayersWithLargeOffsetsBeforeRounding) {
  const int64_t n = 2000, dx = 48, dy = 40;
  auto x = gaussianMatrix(n, dx, 51);
  auto y = gaussianMatrix(n, dy, 52);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < dx; ++j) x[size_t(i * dx + j)] += 1500.0f - 20.0f * float(j);
    for (int64_t j = 0; j < dy; ++j)
      y[size_t(i * dy + j)] = 0.8f * (x[size_t(i * dx + j)] - 1500.0f + 20.0f * float(j)) +
                              0.6f * y[size_t(i * dy + j)] - 900.0f + 10.0f * float(j);
  }
  const double want = ckaFromDefinition(x, dx, y, dy, n);
  EXPECT_GT(want, 0.1);
  EXPECT_LT(want, 0.9);
  EXPECT_NEAR(cka(x, y, n, dx, dy), want, 1e-6 * want);
}

INSTANTIATE_TEST_SUITE_P(Shapes, CkaDefinition,
                         ::testing::Values(std::tuple<int64_t, int64_t, int64_t>{200, 150, 120},
                                           std::tuple<int64_t, int64_t, int64_t>{120, 150, 90},
                                           std::tuple<int64_t, int64_t, int64_t>{200, 40, 60}));

}  // namespace
}  // namespace strata
