// The twonn plugin (plugins/twonn), loaded from the build tree and called through the C ABI:
// closed forms (points filling a known k-dimensional cube inside R^d) and an independent
// reference (scikit-learn neighbours, tests/reference/plugin_metrics_reference.py).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "support/plugin_test_support.h"
#include "support/temp_dir.h"

namespace strata {
namespace {

using testing::runBuiltMetric;
using testing::uniformCubeInSubspace;

TEST(TwoNNPlugin, DeclaresItsMetricOptionsAndDirection) {
  const plugin::MetricEntry* m = testing::builtPlugins().findMetric("twonn_id");
  ASSERT_NE(m, nullptr) << "twonn_id not found in " STRATA_PLUGIN_BUILD_DIR;
  EXPECT_FALSE(m->info.higherIsBetter);
  ASSERT_EQ(m->options.size(), 2u);
  EXPECT_EQ(m->options[0].name, "estimator");
  EXPECT_EQ(m->options[0].defaultValue, "fit");
  EXPECT_EQ(m->options[1].name, "discard");
}

struct CubeCase {
  int64_t k;
  const char* estimator;
};

// Shown in CTest's test names ("# GetParam() = …"): readable, not the struct's bytes.
void PrintTo(const CubeCase& c, std::ostream* out) { *out << c.estimator << ", k = " << c.k; }

class TwoNNOnACube : public ::testing::TestWithParam<CubeCase> {};

// Uniform points in [0,1]^k rotated into R^32: TwoNN must find k. The cube's boundary biases
// the estimate slightly low for larger k at this N, hence 12%.
TEST_P(TwoNNOnACube, FindsTheDimensionOfTheSubspace) {
  const auto [k, estimator] = GetParam();
  const int64_t n = 2500, d = 32;
  const auto x = uniformCubeInSubspace(n, k, d, 100 + uint64_t(k));
  const double id =
      runBuiltMetric("twonn_id", x, n, d, nullptr, 0, std::string("estimator=") + estimator);
  RecordProperty("twonn_" + std::string(estimator) + "_k" + std::to_string(k), std::to_string(id));
  EXPECT_NEAR(id, double(k), 0.12 * double(k)) << estimator << " on a " << k << "-cube in R^" << d;
}

INSTANTIATE_TEST_SUITE_P(Dimensions, TwoNNOnACube,
                         ::testing::Values(CubeCase{1, "fit"}, CubeCase{2, "fit"},
                                           CubeCase{4, "fit"}, CubeCase{6, "fit"},
                                           CubeCase{2, "mle"}, CubeCase{4, "mle"}),
                         [](const auto& info) {
                           return std::string(info.param.estimator) + "_k" +
                                  std::to_string(info.param.k);
                         });

TEST(TwoNNPlugin, IsInvariantToScaleAndRotation) {
  const int64_t n = 800, d = 16;
  const auto x = uniformCubeInSubspace(n, 3, d, 7);
  const auto y = testing::rotatedScaled(x, n, d, 250.0, 8);
  EXPECT_NEAR(runBuiltMetric("twonn_id", x, n, d), runBuiltMetric("twonn_id", y, n, d), 1e-3);
}

TEST(TwoNNPlugin, LeavesOutDuplicatePoints) {
  const int64_t n = 600, d = 8;
  auto x = uniformCubeInSubspace(n, 2, d, 9);
  const auto clean = runBuiltMetric("twonn_id", x, n, d);
  // Duplicate the first 50 rows over the last 50: those pairs have r1 = 0 and are left out.
  std::copy(x.begin(), x.begin() + 50 * d, x.end() - 50 * d);
  const double withDuplicates = runBuiltMetric("twonn_id", x, n, d);
  EXPECT_TRUE(std::isfinite(withDuplicates));
  EXPECT_NEAR(withDuplicates, clean, 0.3);
}

// Every row present two or three times, as the tokens of an embedding layer are: the copies are
// merged first, so the estimate is that of the distinct rows. (Dropping only points with r1 = 0
// leaves no point at all here, and with fewer copies the neighbours' copies give μ = 1.)
TEST(TwoNNPlugin, MergesCoincidentPointsBeforeEstimating) {
  const int64_t n = 600, d = 8;
  const auto x = uniformCubeInSubspace(n, 3, d, 11);
  const double clean = runBuiltMetric("twonn_id", x, n, d);
  std::vector<float> copies = x;
  copies.insert(copies.end(), x.begin(), x.end());              // every row twice
  copies.insert(copies.end(), x.begin(), x.begin() + 300 * d);  // half of them three times
  const int64_t m = int64_t(copies.size()) / d;
  EXPECT_NEAR(runBuiltMetric("twonn_id", copies, m, d), clean, 1e-9);
  EXPECT_NEAR(runBuiltMetric("twonn_id", copies, m, d, nullptr, 0, "estimator=mle"),
              runBuiltMetric("twonn_id", x, n, d, nullptr, 0, "estimator=mle"), 1e-9);
}

TEST(TwoNNPlugin, NamesTheDuplicatesWhenTooFewDistinctPointsRemain) {
  const auto one = uniformCubeInSubspace(2, 1, 4, 3);
  std::vector<float> x;
  for (int c = 0; c < 10; ++c) x.insert(x.end(), one.begin(), one.end());  // 2 distinct of 20
  try {
    runBuiltMetric("twonn_id", x, 20, 4);
    FAIL() << "two distinct points were accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("18 of 20 rows are copies"), std::string::npos)
        << e.what();
  }
}

TEST(TwoNNPlugin, RefusesBadOptionsAndTooFewPointsByName) {
  const auto x = uniformCubeInSubspace(2, 1, 4, 1);
  try {
    runBuiltMetric("twonn_id", x, 2, 4);
    FAIL() << "two points were accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("twonn_id"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("at least 3"), std::string::npos) << e.what();
  }
  const auto y = uniformCubeInSubspace(50, 1, 4, 1);
  EXPECT_THROW(runBuiltMetric("twonn_id", y, 50, 4, nullptr, 0, "estimator=median"), Error);
  EXPECT_THROW(runBuiltMetric("twonn_id", y, 50, 4, nullptr, 0, "neighbours=3"), ConfigError);
}

// μ_i = r2/r1 of every row from all n² pair distances in double (no Gram trick, no candidates),
// and the two estimators from them exactly as twonn.h defines them.
struct BruteForceTwoNN {
  double fit = 0, mle = 0;
};

BruteForceTwoNN bruteForceTwoNN(const std::vector<float>& x, int64_t n, int64_t d, double discard) {
  std::vector<double> mu;
  for (int64_t i = 0; i < n; ++i) {
    double r1 = std::numeric_limits<double>::infinity(), r2 = r1;
    for (int64_t j = 0; j < n; ++j) {
      if (j == i) continue;
      double s = 0;
      for (int64_t k = 0; k < d; ++k) {
        const double t = double(x[size_t(i * d + k)]) - double(x[size_t(j * d + k)]);
        s += t * t;
      }
      if (s < r1)
        r2 = r1, r1 = s;
      else if (s < r2)
        r2 = s;
    }
    mu.push_back(std::sqrt(r2 / r1));
  }
  BruteForceTwoNN out;
  double logs = 0;
  for (double m : mu) logs += std::log(m);
  out.mle = double(mu.size()) / logs;
  std::sort(mu.begin(), mu.end());
  const size_t kept =
      std::min(size_t(std::floor(double(mu.size()) * (1 - discard))), mu.size() - 1);
  double xy = 0, xx = 0;
  for (size_t i = 0; i < kept; ++i) {
    const double lx = std::log(mu[i]), ly = -std::log(1.0 - double(i + 1) / double(mu.size()));
    xy += lx * ly;
    xx += lx * lx;
  }
  out.fit = xy / xx;
  return out;
}

// Needs no Python. 3600 points: the plugin's float Gram is then cut into 8 blocks of at most
// 512 rows and only the 36 blocks on and above the diagonal are multiplied, so most rows find
// some neighbours through a block's columns (its transposed copy) and others through its rows.
TEST(TwoNNPlugin, AgreesWithABruteForceSearchAcrossGramBlocks) {
  const int64_t n = 3600, d = 12;
  auto x = uniformCubeInSubspace(n, 3, d, 41);
  const auto noise = testing::gaussianMatrix(n, d, 42);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(std::sin(3.0 * x[i]) + 0.01 * noise[i]);
  const auto want = bruteForceTwoNN(x, n, d, 0.1);
  EXPECT_NEAR(runBuiltMetric("twonn_id", x, n, d), want.fit, 1e-9 * want.fit);
  EXPECT_NEAR(runBuiltMetric("twonn_id", x, n, d, nullptr, 0, "estimator=mle"), want.mle,
              1e-9 * want.mle);
}

TEST(TwoNNPlugin, AgreesWithTheScikitLearnReference) {
  const int64_t n = 1200, d = 24;
  // A curved 3-manifold plus a little isotropic noise (TwoNN sees ≈ 4 here): no closed form.
  auto x = uniformCubeInSubspace(n, 3, d, 21);
  const auto noise = testing::gaussianMatrix(n, d, 22);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(std::sin(3.0 * x[i]) + 0.01 * noise[i]);
  TempDir dir;
  std::string why;
  const std::string text = testing::pluginReference(dir.path().string(), x, n, d, nullptr, 0, why);
  if (text.empty()) GTEST_SKIP() << "no reference: " << why;
  const auto want = nlohmann::json::parse(text);
  const double fit = runBuiltMetric("twonn_id", x, n, d);
  const double mle = runBuiltMetric("twonn_id", x, n, d, nullptr, 0, "estimator=mle; discard=0.1");
  RecordProperty("fit", std::to_string(fit));
  RecordProperty("mle", std::to_string(mle));
  EXPECT_NEAR(fit, want["twonn_fit"].get<double>(), 1e-6 * fit);
  EXPECT_NEAR(mle, want["twonn_mle"].get<double>(), 1e-6 * mle);
}

}  // namespace
}  // namespace strata
