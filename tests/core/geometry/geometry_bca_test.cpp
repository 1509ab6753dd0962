// Bootstrap intervals from given replicates (geometry/bootstrap_interval.h): the BCa interval
// against scipy.stats' own BCa step run on the very same replicates
// (tests/reference/bca_reference.py), closed forms, and the flag for a point outside.

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <vector>

#include "geometry/bootstrap_interval.h"
#include "geometry/proxy_options.h"
#include "support/python_finder.h"
#include "support/temp_dir.h"

namespace strata::geometry {
namespace {

TEST(GeometryBca, NormalQuantileAndDistributionFunction) {
  EXPECT_NEAR(normalQuantile(0.975), 1.959963984540054, 1e-13);
  EXPECT_NEAR(normalQuantile(0.01), -2.326347874040841, 1e-13);
  EXPECT_NEAR(normalQuantile(1e-10), -6.361340902404056, 1e-10);
  EXPECT_EQ(normalQuantile(0.5), 0.0);
  for (double p : {1e-8, 0.02, 0.3, 0.77, 0.99})
    EXPECT_NEAR(normalCdf(normalQuantile(p)), p, 1e-14 + 1e-12 * p);
}

// No bias (the point is the replicates' median) and no acceleration (symmetric jackknife
// values): the adjusted levels are the plain ones, so BCa equals the percentile interval.
TEST(GeometryBca, EqualsThePercentileIntervalWithoutBiasOrAcceleration) {
  std::vector<double> replicates;
  for (int i = 0; i < 101; ++i) replicates.push_back(std::pow(double(i - 50), 3));
  const std::vector<double> jackknife{-1, 1, -2, 2};
  EXPECT_EQ(jackknifeAcceleration(jackknife), 0.0);
  const Interval bca = bcaInterval(replicates, 0.0, jackknife, 0.9);
  const Interval plain = percentileInterval(replicates, 0.9);
  EXPECT_NEAR(bca.low, plain.low, 1e-9);
  EXPECT_NEAR(bca.high, plain.high, 1e-9);
}

// The point is flagged whenever the interval misses it. Without acceleration BCa moves the
// levels by 2z₀ but contains the point exactly when the percentile interval does (α₂ > share
// ⇔ z₀ > z_{α/2}), so a strongly biased replicate set still misses it, and is flagged.
TEST(GeometryBca, FlagsAPointOutsideItsInterval) {
  std::vector<double> replicates;
  for (int i = 0; i < 200; ++i) replicates.push_back(1.0 + 0.01 * i);  // 1.00 … 2.99
  bool outside = false;
  const Interval centred = bcaInterval(replicates, 2.0, {}, 0.8, &outside);
  EXPECT_FALSE(outside);
  EXPECT_LE(centred.low, 2.0);
  EXPECT_GE(centred.high, 2.0);
  // 5 of 200 below the point and one equal to it (counted half): z₀ = Φ⁻¹(5.5/200) ≈ −1.92,
  // α₂ = Φ(2z₀ + 1.28) ≈ 0.005, so [1.00, 1.01].
  const Interval biased = bcaInterval(replicates, 1.05, {}, 0.8, &outside);
  EXPECT_TRUE(outside);
  EXPECT_NEAR(
      biased.high,
      percentile(replicates, normalCdf(2 * normalQuantile(5.5 / 200) + normalQuantile(0.9))),
      1e-12);
  // A positive acceleration stretches the upper level enough to reach the point.
  const std::vector<double> skewedJackknife{0, 0, 0, 0, 0, 0, 0, 0, 0, -3};
  EXPECT_GT(jackknifeAcceleration(skewedJackknife), 0.1);
  const Interval accelerated = bcaInterval(replicates, 1.05, skewedJackknife, 0.8, &outside);
  EXPECT_GT(accelerated.high, biased.high);
  // Every replicate above the point: z₀ = −∞, no BCa; the percentile interval, flagged.
  const Interval none = bcaInterval(replicates, 0.5, {}, 0.8, &outside);
  EXPECT_TRUE(outside);
  const Interval plain = percentileInterval(replicates, 0.8);
  EXPECT_EQ(none.low, plain.low);
  EXPECT_EQ(none.high, plain.high);
}

TEST(GeometryBca, LeavesOutUndefinedReplicates) {
  const std::vector<double> with{1, 2, std::nan(""), 3, 4, 5}, without{1, 2, 3, 4, 5};
  const Interval a = bcaInterval(with, 3.0, {}, 0.5), b = bcaInterval(without, 3.0, {}, 0.5);
  EXPECT_EQ(a.low, b.low);
  EXPECT_EQ(a.high, b.high);
}

double logMeanSquare(const std::vector<double>& x, const std::vector<float>& weights) {
  double sum = 0, total = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double w = weights.empty() ? 1.0 : double(weights[i]);
    sum += w * x[i] * x[i];
    total += w;
  }
  return std::log(sum / total);
}

TEST(GeometryBca, MatchesScipyOnTheSameReplicates) {
  std::string why;
  const std::string python = testing::findPython(
      {"numpy", "scipy.stats"},
      "run scripts/setup.sh (Strata's Python environment) or set STRATA_PYTHON", why);
  if (python.empty()) GTEST_SKIP() << "cannot run the SciPy reference: " << why;
  // A skewed sample and a non-linear statistic, so that both z₀ and a are far from 0.
  std::mt19937_64 engine(5);
  std::lognormal_distribution<double> skewed(0.0, 0.8);
  std::vector<double> data;
  for (int i = 0; i < 30; ++i) data.push_back(skewed(engine));
  std::vector<double> replicates;
  for (int r = 0; r < 500; ++r)
    replicates.push_back(logMeanSquare(data, drawBootstrapWeights(30, deriveSeed(9, r))));
  std::vector<double> jackknife;  // delete-one: blocks of one observation
  for (size_t i = 0; i < data.size(); ++i) {
    std::vector<float> weights(data.size(), 1.0f);
    weights[i] = 0.0f;
    jackknife.push_back(logMeanSquare(data, weights));
  }
  const double point = logMeanSquare(data, {});

  TempDir dir;
  nlohmann::json fixture{{"data", data},
                         {"statistic", "log_mean_square"},
                         {"replicates", replicates},
                         {"confidence", 0.9}};
  std::ofstream(dir / "fixture.json") << fixture.dump();
  const std::string command = python +
                              " '" STRATA_SOURCE_DIR "/tests/reference/bca_reference.py' '" +
                              dir.path().string() + "'";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  const auto want = nlohmann::json::parse(std::ifstream(dir / "reference.json"));
  const auto wantJackknife = want["jackknife"].get<std::vector<double>>();
  ASSERT_EQ(wantJackknife.size(), jackknife.size());
  for (size_t i = 0; i < jackknife.size(); ++i) EXPECT_NEAR(jackknife[i], wantJackknife[i], 1e-12);
  EXPECT_NEAR(jackknifeAcceleration(jackknife), want["a_hat"].get<double>(), 1e-12);
  EXPECT_GT(std::abs(want["a_hat"].get<double>()), 0.01);  // the case exercises a
  const Interval got = bcaInterval(replicates, point, jackknife, 0.9);
  EXPECT_NEAR(got.low, want["low"].get<double>(), 1e-10);
  EXPECT_NEAR(got.high, want["high"].get<double>(), 1e-10);
  // And it is not simply the percentile interval.
  const Interval plain = percentileInterval(replicates, 0.9);
  EXPECT_GT(std::abs(plain.low - got.low) + std::abs(plain.high - got.high), 1e-3);
}

}  // namespace
}  // namespace strata::geometry
