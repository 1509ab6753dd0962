// Intervals for S(l) and l* (geometry/score_bootstrap.h): S and l* recomputed on every token
// resample, the resamples shared by all layers.

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "geometry/backend.h"
#include "geometry/layer_geometry.h"
#include "geometry/metric_series.h"
#include "geometry/score_bootstrap.h"

namespace strata::geometry {
namespace {

/** N×d Gaussian rows, column j scaled by (j + 1)^(−power). */
std::vector<float> rowsWithDecay(int64_t n, int64_t d, double power, uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::normal_distribution<double> normal;
  std::vector<float> rows(n * d);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < d; ++j)
      rows[i * d + j] = float(normal(engine) * std::pow(j + 1.0, -power));
  return rows;
}

/** The point values: each layer's first replicate. */
std::vector<ProxyValues> pointOf(const std::vector<std::vector<ProxyValues>>& replicates) {
  std::vector<ProxyValues> out;
  for (const auto& r : replicates) out.push_back(r.empty() ? ProxyValues{1, 1, 1} : r.front());
  return out;
}

// Layer 2 is better than 1 and 3 in every proxy on every resample: l* = 2 every time.
TEST(GeometryScoreBootstrap, AClearlyBestLayerIsLStarOnEveryResample) {
  const std::vector<int64_t> layers{0, 1, 2, 3};
  std::mt19937_64 engine(1);
  std::uniform_real_distribution<double> jitter(0.95, 1.05);
  std::vector<std::vector<ProxyValues>> replicates(4);
  for (int r = 0; r < 30; ++r) {
    replicates[0].push_back({9 * jitter(engine), 9 * jitter(engine), 1 * jitter(engine)});
    replicates[1].push_back({1 * jitter(engine), 1 * jitter(engine), 8 * jitter(engine)});
    replicates[2].push_back({4 * jitter(engine), 3 * jitter(engine), 2 * jitter(engine)});
    replicates[3].push_back({1.5 * jitter(engine), 1.2 * jitter(engine), 7 * jitter(engine)});
  }
  const ScoreBootstrap b =
      bootstrapScores(layers, proxySeries(pointOf(replicates), replicates), {}, {1, 3}, 0.9);
  EXPECT_EQ(b.resamples, 30);
  EXPECT_DOUBLE_EQ(b.bestFrequency[2], 1.0);
  EXPECT_DOUBLE_EQ(b.bestFrequency[1], 0.0);
  EXPECT_DOUBLE_EQ(b.bestFrequency[3], 0.0);
  EXPECT_TRUE(std::isnan(b.bestFrequency[0]));  // outside the candidates: no entry
  EXPECT_TRUE(std::isnan(b.score[0].low));
  EXPECT_GT(b.score[2].low, b.score[1].high);
  // A point S outside its interval is flagged: make layer 3's point far worse than any resample.
  std::vector<ProxyValues> shifted = pointOf(replicates);
  shifted[2] = {1, 1, 8};  // layer 2's point: as poor as layer 1
  const ScoreBootstrap flagged =
      bootstrapScores(layers, proxySeries(shifted, replicates), {}, {1, 3}, 0.9);
  EXPECT_TRUE(flagged.excludesPoint[2]);
  EXPECT_FALSE(flagged.excludesPoint[0]);  // outside the candidates

  // Without resamples there is nothing to report.
  const ScoreBootstrap none = bootstrapScores(
      layers, proxySeries(pointOf(replicates), std::vector<std::vector<ProxyValues>>(4)), {},
      {1, 3}, 0.9);
  EXPECT_EQ(none.resamples, 0);
  EXPECT_TRUE(std::isnan(none.bestFrequency[2]));
  std::vector<MetricSeries> short3 = proxySeries(pointOf(replicates), replicates);
  short3[kCurvatureSeries].replicates.pop_back();  // one replicate list too few
  EXPECT_THROW(bootstrapScores(layers, short3, {}, {1, 3}, 0.9), std::invalid_argument);
  std::vector<MetricSeries> uneven = proxySeries(pointOf(replicates), replicates);
  uneven[kEffectiveRankSeries].replicates[2].pop_back();  // 29 resamples on one layer
  EXPECT_THROW(bootstrapScores(layers, uneven, {}, {1, 3}, 0.9), std::invalid_argument);
}

// Layers 1 and 2 are two draws of one distribution, layer 3 is isotropic (worse in all three
// proxies): l* is 1 or 2, each on a share of the resamples, never 3. (Two layers holding the
// very same rows would tie on every resample, the resamples being shared, and the tie goes to
// the shallower layer.) The S intervals contain the point values.
TEST(GeometryScoreBootstrap, TwoEquivalentLayersSplitTheLStarFrequency) {
  const int64_t n = 1500, d = 12;
  ProxyOptions options;
  options.normalisation = Normalisation::Trace;  // what this test's expectations assume
  options.anchors = 256;
  options.neighbours = 10;
  options.directions = 512;
  options.bootstrapResamples = 40;
  options.seed = 2;
  auto backend = makeCpuBackend();
  std::vector<LayerGeometry> geometry;
  const double power[3] = {1.0, 1.0, 0.0};
  for (int64_t l = 1; l <= 3; ++l) {
    const auto rows = rowsWithDecay(n, d, power[l - 1], 100 + l);
    geometry.push_back(computeLayerGeometry(*backend, {rows.data(), n, d}, l, options));
  }
  std::vector<int64_t> layers;
  std::vector<ProxyValues> values;
  std::vector<std::vector<ProxyValues>> replicates;
  for (const auto& g : geometry) {
    layers.push_back(g.layer);
    values.push_back(g.values);
    replicates.push_back(g.replicates);
    ASSERT_EQ(g.replicates.size(), 40u);
  }
  const ScoreBootstrap b =
      bootstrapScores(layers, proxySeries(values, replicates), {}, {1, 3}, 0.95);
  std::cout << "  l* frequencies: " << b.bestFrequency[0] << ", " << b.bestFrequency[1] << ", "
            << b.bestFrequency[2] << "\n";
  EXPECT_EQ(b.bestFrequency[2], 0.0);
  EXPECT_NEAR(b.bestFrequency[0] + b.bestFrequency[1], 1.0, 1e-12);
  EXPECT_GE(b.bestFrequency[0], 0.1);
  EXPECT_GE(b.bestFrequency[1], 0.1);
  const LayerScores point = scoreLayers(layers, proxySeries(values), {}, {1, 3});
  for (size_t i = 0; i < layers.size(); ++i)
    EXPECT_TRUE(b.score[i].low <= point.score[i] && point.score[i] <= b.score[i].high)
        << "layer " << layers[i] << ": " << point.score[i] << " not in [" << b.score[i].low << ", "
        << b.score[i].high << "]";
}

// The resamples hold the same tokens on every layer: a layer that is a copy of another gives
// the very same replicates.
TEST(GeometryScoreBootstrap, ResamplesAreSharedAcrossLayers) {
  const int64_t n = 600, d = 8;
  const auto rows = rowsWithDecay(n, d, 0.5, 7);
  ProxyOptions options;
  options.normalisation = Normalisation::Trace;  // what this test's expectations assume
  options.anchors = 64;
  options.neighbours = 8;
  options.directions = 128;
  options.bootstrapResamples = 5;
  auto backend = makeCpuBackend();
  const LayerGeometry a = computeLayerGeometry(*backend, {rows.data(), n, d}, 1, options);
  const LayerGeometry b = computeLayerGeometry(*backend, {rows.data(), n, d}, 4, options);
  ASSERT_EQ(a.replicates.size(), 5u);
  for (size_t r = 0; r < 5; ++r) {
    EXPECT_EQ(a.replicates[r].effectiveRank, b.replicates[r].effectiveRank);
    EXPECT_EQ(a.replicates[r].curvature, b.replicates[r].curvature);
  }
}

}  // namespace
}  // namespace strata::geometry
