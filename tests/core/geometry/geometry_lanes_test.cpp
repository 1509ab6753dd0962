// The CPU backend's lanes (computeBatch): a bootstrap's evaluations run side by side and give
// exactly what one evaluation after another gives; a failing evaluation stays in its outcome,
// and a cancellation from the progress callback stops the batch.

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

#include "geometry/backend.h"
#include "geometry/cpu/proxy_lanes.h"
#include "geometry/layer_geometry.h"

namespace strata::geometry {
namespace {

/** N rows of d = 24 dimensions with a decaying spectrum, fixed seed. */
std::vector<float> rowsOf(int64_t n, int64_t d, uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::normal_distribution<double> normal;
  std::vector<float> rows(n * d);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < d; ++j)
      rows[i * d + j] = static_cast<float>(2.0 + normal(engine) / std::sqrt(j + 1.0));
  return rows;
}

/** The CPU backend behind the interface's own computeBatch: one evaluation after another. */
class SerialBackend final : public GeometryBackend {
 public:
  std::string description() const override { return "serial"; }
  ProxyResult computeProxies(const HiddenStates& states, std::span<const float> weights,
                             const TokenSampling& sampling, const ProxyOptions& options) override {
    return m_cpu->computeProxies(states, weights, sampling, options);
  }

 private:
  std::unique_ptr<GeometryBackend> m_cpu = makeCpuBackend();
};

/** Sizes for N = 3,000 rows of d = 24: enough anchors, neighbours and pairs to be a layer. */
ProxyOptions layerOptions(int64_t resamples, int64_t blocks) {
  ProxyOptions options;
  options.anchors = 200;
  options.neighbours = 12;
  options.directions = 300;
  options.bootstrapResamples = resamples;
  options.jackknifeBlocks = blocks;
  return options;
}

void expectClose(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) {
    EXPECT_EQ(std::isnan(a), std::isnan(b));
    return;
  }
  EXPECT_NEAR(a, b, 1e-12 * std::max(1.0, std::abs(b)));
}

TEST(GeometryLanes, BootstrapInLanesEqualsOneEvaluationAfterAnother) {
  // The tests run with two OpenMP threads: the batch below really runs in two lanes.
  ASSERT_GE(cpu::laneCount(30, 1 << 20), 2);
  const int64_t n = 3000, d = 24;
  const std::vector<float> rows = rowsOf(n, d, 7);
  const HiddenStates states{rows.data(), n, d};
  for (const Normalisation mode : {Normalisation::Standardise, Normalisation::Trace}) {
    ProxyOptions options = layerOptions(12, 6);
    options.normalisation = mode;
    options.seed = 11;
    auto lanes = makeCpuBackend();
    SerialBackend serial;
    const LayerGeometry a = computeLayerGeometry(*lanes, states, 4, options);
    const LayerGeometry b = computeLayerGeometry(serial, states, 4, options);
    ASSERT_EQ(a.replicates.size(), 12u);
    ASSERT_EQ(b.replicates.size(), 12u);
    for (size_t r = 0; r < a.replicates.size(); ++r) {
      expectClose(a.replicates[r].curvature, b.replicates[r].curvature);
      expectClose(a.replicates[r].monotonicity, b.replicates[r].monotonicity);
      expectClose(a.replicates[r].effectiveRank, b.replicates[r].effectiveRank);
    }
    // The intervals use the jackknife's values too (BCa's acceleration), whose Σ the CPU
    // backend derives from the layer's Gram: equal to float32 rounding.
    for (auto [x, y] : {std::pair{a.curvature, b.curvature},
                        {a.monotonicity, b.monotonicity},
                        {a.effectiveRank, b.effectiveRank}}) {
      EXPECT_NEAR(x.low, y.low, 1e-5 * std::abs(y.low));
      EXPECT_NEAR(x.high, y.high, 1e-5 * std::abs(y.high));
    }
    // Resamples differ from each other (the lanes did not all evaluate the same request).
    EXPECT_NE(a.replicates[0].effectiveRank, a.replicates[1].effectiveRank);
  }
}

// With a bootstrap the point estimate is the first request of the batch and runs in a lane: it
// must be the evaluation a layer without a bootstrap gets alone, with its curvature, its whole
// spectrum and every anchor's λ_max (not a resample's options), equal to the float32 rounding
// of Σ under one BLAS thread instead of two.
TEST(GeometryLanes, ThePointEstimateInTheBatchIsThePointAlone) {
  const int64_t n = 3000, d = 24;
  const std::vector<float> rows = rowsOf(n, d, 9);
  const HiddenStates states{rows.data(), n, d};
  ProxyOptions options = layerOptions(8, 4), alone = layerOptions(0, 0);
  options.spectrumSize = alone.spectrumSize = 10;
  auto lanes = makeCpuBackend(), single = makeCpuBackend();
  const LayerGeometry a = computeLayerGeometry(*lanes, states, 2, options);
  const LayerGeometry b = computeLayerGeometry(*single, states, 2, alone);
  ASSERT_EQ(a.replicates.size(), 8u);
  const auto close = [](double x, double y) { EXPECT_NEAR(x, y, 1e-9 * std::abs(y)); };
  close(a.values.curvature, b.values.curvature);
  close(a.values.monotonicity, b.values.monotonicity);
  close(a.values.effectiveRank, b.values.effectiveRank);
  ASSERT_EQ(a.spectrum.size(), 10u);
  ASSERT_EQ(b.spectrum.size(), 10u);
  for (size_t i = 0; i < a.spectrum.size(); ++i) close(a.spectrum[i], b.spectrum[i]);
  ASSERT_EQ(a.localLambdaMax.size(), 200u);
  ASSERT_EQ(b.localLambdaMax.size(), 200u);
  for (size_t i = 0; i < a.localLambdaMax.size(); ++i)
    close(a.localLambdaMax[i], b.localLambdaMax[i]);
}

/**
 * Block [begin, end) of n rows deleted, evaluated twice: its Σ from the layer's Gram (the
 * request with deletedBlock) and its own product (the same weights without it), with the
 * anchors and pairs of `options`' draw that avoid the block.
 */
std::vector<ProxyOutcome> blockBothWays(const HiddenStates& states, const ProxyOptions& options,
                                        int64_t begin, int64_t end) {
  const int64_t n = states.rows;
  const TokenSampling sampling = drawTokenSampling(n, {}, options, 5);
  std::vector<float> weights(size_t(n), 1.0f);
  std::fill(weights.begin() + begin, weights.begin() + end, 0.0f);
  TokenSampling kept;
  for (auto a : sampling.anchors)
    if (weights[size_t(a)] > 0) kept.anchors.push_back(a);
  for (auto p : sampling.pairs)
    if (weights[size_t(p.first)] > 0 && weights[size_t(p.second)] > 0) kept.pairs.push_back(p);
  const std::vector<ProxyRequest> batch{{weights, kept, options, {begin, end}},
                                        {weights, kept, options, {0, 0}}};
  return makeCpuBackend()->computeBatch(states, batch, [](int64_t) {});
}

TEST(GeometryLanes, AJackknifeBlocksSigmaFromTheLayersGramEqualsItsOwnProduct) {
  // Rows far from the origin and with a block of shifted rows: the mean moves when the block
  // leaves, so the W·δδᵀ correction matters.
  const int64_t n = 1200, d = 20;
  std::vector<float> rows = rowsOf(n, d, 9);
  for (int64_t i = 300; i < 420; ++i)
    for (int64_t j = 0; j < d; ++j) rows[i * d + j] += 3.0f + 0.1f * float(j);
  const HiddenStates states{rows.data(), n, d};
  for (const Normalisation mode :
       {Normalisation::Standardise, Normalisation::Trace, Normalisation::None}) {
    ProxyOptions options;
    options.normalisation = mode;
    options.curvature = false;
    options.directions = 200;
    options.spectrumSize = 4;
    const auto out = blockBothWays(states, options, 300, 420);
    ASSERT_FALSE(out[0].error);
    ASSERT_FALSE(out[1].error);
    const ProxyResult& fromGram = out[0].result;
    const ProxyResult& own = out[1].result;
    EXPECT_NEAR(fromGram.values.effectiveRank, own.values.effectiveRank,
                1e-5 * own.values.effectiveRank);
    EXPECT_NEAR(fromGram.values.monotonicity, own.values.monotonicity,
                1e-5 * own.values.monotonicity);
    ASSERT_EQ(fromGram.spectrum.size(), own.spectrum.size());
    for (size_t i = 0; i < own.spectrum.size(); ++i)
      // 5e-5: the own product is one float32 ssyrk over ~1,000 rows, whose rounding differs by
      // kernel (1.8e-5·λ_max on a Zen 5's, under 1e-5 on a Xeon's); dropping W·δδᵀ is ~1e-2.
      EXPECT_NEAR(fromGram.spectrum[i], own.spectrum[i], 5e-5 * own.spectrum[0]);
  }
}

TEST(GeometryLanes, AJackknifeBlocksSigmaFromTheLayersGramHoldsColumnsOfEveryScale) {
  // Columns from scale 1 down to e^-69 ≈ 1e-30: the squares of the smallest underflow float32.
  // Standardising gives every column unit variance, so the block's Σ from the layer's Gram must
  // still be its own product's (before, it was not positive definite: its small columns'
  // diagonal had underflowed to 0).
  const int64_t n = 1200, d = 24;
  std::vector<float> rows = rowsOf(n, d, 13);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < d; ++j) rows[i * d + j] *= std::exp(-3.0f * float(j));
  const HiddenStates states{rows.data(), n, d};
  ProxyOptions options;
  options.curvature = false;
  options.directions = 200;
  options.spectrumSize = 4;
  const auto out = blockBothWays(states, options, 600, 720);
  ASSERT_FALSE(out[1].error);
  if (out[0].error) {
    try {
      std::rethrow_exception(out[0].error);
    } catch (const std::exception& e) {
      FAIL() << "the block's Σ from the Gram failed: " << e.what();
    }
  }
  EXPECT_NEAR(out[0].result.values.effectiveRank, out[1].result.values.effectiveRank,
              1e-5 * out[1].result.values.effectiveRank);
  EXPECT_NEAR(out[0].result.values.monotonicity, out[1].result.values.monotonicity,
              1e-5 * out[1].result.values.monotonicity);
}

/** A small layer (400 × 8) and options for batches of quick evaluations. */
struct SmallLayer {
  static constexpr int64_t n = 400, d = 8;
  std::vector<float> rows = rowsOf(n, d, 3);
  HiddenStates states{rows.data(), n, d};
  ProxyOptions options = [] {
    ProxyOptions o;
    o.anchors = 50;
    o.neighbours = 8;
    o.directions = 60;
    return o;
  }();
};

TEST(GeometryLanes, AFailingRequestStaysInItsOutcome) {
  const SmallLayer layer;
  const auto& [n, states, options] = std::tie(SmallLayer::n, layer.states, layer.options);
  const TokenSampling good = drawTokenSampling(n, {}, options, 1);
  TokenSampling bad = good;
  bad.anchors.push_back(n + 5);  // out of range
  std::vector<ProxyRequest> batch{{{}, good, options}, {{}, bad, options}, {{}, good, options}};
  auto backend = makeCpuBackend();
  std::vector<int64_t> reports;
  const std::vector<ProxyOutcome> out =
      backend->computeBatch(states, batch, [&](int64_t done) { reports.push_back(done); });
  ASSERT_EQ(out.size(), 3u);
  EXPECT_FALSE(out[0].error);
  EXPECT_TRUE(out[1].error);
  EXPECT_THROW(std::rethrow_exception(out[1].error), std::invalid_argument);
  EXPECT_FALSE(out[2].error);
  EXPECT_EQ(out[0].result.values.effectiveRank, out[2].result.values.effectiveRank);
  ASSERT_FALSE(reports.empty());
  EXPECT_EQ(reports.back(), 3);
}

TEST(GeometryLanes, AnExceptionFromTheCallbackStopsTheBatch) {
  const SmallLayer layer;
  const auto& [n, states, options] = std::tie(SmallLayer::n, layer.states, layer.options);
  const TokenSampling sampling = drawTokenSampling(n, {}, options, 2);
  const std::vector<ProxyRequest> batch(40, ProxyRequest{{}, sampling, options});
  auto backend = makeCpuBackend();
  int calls = 0;
  EXPECT_THROW(backend->computeBatch(states, batch,
                                     [&](int64_t) {
                                       ++calls;
                                       throw std::runtime_error("cancelled");
                                     }),
               std::runtime_error);
  EXPECT_EQ(calls, 1);  // stopped at once: no further report, not one per request
}

TEST(GeometryLanes, TheMemoryPlansLimitHoldsTheLanes) {
  // One lane runs the batch in order on the calling thread and reports after every evaluation;
  // a second lane's evaluations would leave gaps in the reports (only lane 0 reports).
  ASSERT_GE(cpu::laneCount(40, 1 << 20), 2);
  const SmallLayer layer;
  const auto& [n, states, options] = std::tie(SmallLayer::n, layer.states, layer.options);
  const TokenSampling sampling = drawTokenSampling(n, {}, options, 3);
  const std::vector<ProxyRequest> batch(40, ProxyRequest{{}, sampling, options});
  auto backend = makeCpuBackend();
  EXPECT_GE(backend->laneThreads(), 2);
  backend->limitLanes(1);
  std::vector<int64_t> reports;
  backend->computeBatch(states, batch, [&](int64_t done) { reports.push_back(done); });
  std::vector<int64_t> inOrder(40);
  for (int64_t i = 0; i < 40; ++i) inOrder[size_t(i)] = i + 1;
  EXPECT_EQ(reports, inOrder);
}

}  // namespace
}  // namespace strata::geometry
