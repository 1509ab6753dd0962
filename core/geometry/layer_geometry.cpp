#include "geometry/layer_geometry.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "engine/job.h"
#include "geometry/median.h"

namespace strata::geometry {

namespace {

/** numpy.percentile's default ("linear"): q·(n − 1) between the sorted values. */
double percentile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  const double position = q * double(values.size() - 1);
  const size_t below = static_cast<size_t>(std::floor(position));
  const size_t above = std::min(below + 1, values.size() - 1);
  const double fraction = position - double(below);
  return values[below] + fraction * (values[above] - values[below]);
}

/**
 * m_curv of one bootstrap replicate: the median of 1/λ_max over a resample (with replacement)
 * of the point estimate's anchors. Resampling the anchors, not the neighbour candidates, keeps
 * the density of the neighbour search: a token resample holds only ~63% distinct rows, which
 * widens every neighbourhood and biases m_curv low.
 */
double resampledCurvature(const std::vector<double>& localLambdaMax, uint64_t seed) {
  const std::vector<float> counts = drawBootstrapWeights(int64_t(localLambdaMax.size()), seed);
  std::vector<double> resampled;
  resampled.reserve(localLambdaMax.size());
  for (size_t i = 0; i < counts.size(); ++i)
    for (int c = 0; c < int(counts[i]); ++c) resampled.push_back(localLambdaMax[i]);
  return curvatureFromLambdaMax(resampled);
}

Interval interval(const std::vector<double>& values, double confidence) {
  const double tail = (1.0 - confidence) / 2.0;
  return {percentile(values, tail), percentile(values, 1.0 - tail)};
}

// Streams of options.seed: 0 is the point estimate's sampling (options.seed itself); resample r
// of layer l draws its row counts from stream 2·(r+1) and its own sampling from stream
// 2·(r+1) + 1 of deriveSeed(options.seed, l).
uint64_t resampleSeed(uint64_t seed, int64_t layer, int64_t resample, bool sampling) {
  const uint64_t layerSeed = deriveSeed(seed, static_cast<uint64_t>(layer));
  return deriveSeed(layerSeed, 2 * static_cast<uint64_t>(resample + 1) + (sampling ? 1 : 0));
}

}  // namespace

LayerGeometry computeLayerGeometry(GeometryBackend& backend, const HiddenStates& states,
                                   int64_t layer, const ProxyOptions& options, JobContext* ctx) {
  options.validate();
  const int64_t resamples = options.bootstrapResamples;
  const auto report = [&](int64_t done) {
    if (ctx == nullptr) return;
    ctx->checkCancelled();
    ctx->progress(double(done) / double(resamples + 1),
                  done == 0
                      ? "proxies"
                      : "bootstrap " + std::to_string(done) + "/" + std::to_string(resamples));
  };
  report(0);

  LayerGeometry out;
  out.layer = layer;
  const TokenSampling sampling = drawTokenSampling(states.rows, {}, options, options.seed);
  ProxyResult point = backend.computeProxies(states, {}, sampling, options);
  out.values = point.values;
  out.spectrum = std::move(point.spectrum);
  out.localLambdaMax = std::move(point.localLambdaMax);
  out.curvature = {out.values.curvature, out.values.curvature};
  out.monotonicity = {out.values.monotonicity, out.values.monotonicity};
  out.effectiveRank = {out.values.effectiveRank, out.values.effectiveRank};
  if (resamples == 0) {
    if (ctx) ctx->progress(1.0, "done");
    return out;
  }

  ProxyOptions resampleOptions = options;
  resampleOptions.spectrumSize = 1;  // k_eff needs λ_max only
  resampleOptions.curvature = false;  // m_curv resamples the anchors below, not the tokens
  std::vector<double> curvature, monotonicity, effectiveRank;
  for (int64_t r = 0; r < resamples; ++r) {
    report(r + 1);
    const std::vector<float> weights =
        drawBootstrapWeights(states.rows, resampleSeed(options.seed, layer, r, false));
    ProxyResult replicate;
    try {
      const TokenSampling own = drawTokenSampling(states.rows, weights, resampleOptions,
                                                  resampleSeed(options.seed, layer, r, true));
      replicate = backend.computeProxies(states, weights, own, resampleOptions);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("bootstrap resample " + std::to_string(r + 1) + " of layer " +
                                  std::to_string(layer) + ": " + e.what());
    }
    curvature.push_back(resampledCurvature(out.localLambdaMax, resampleSeed(options.seed, layer, r, true) + 1));
    monotonicity.push_back(replicate.values.monotonicity);
    effectiveRank.push_back(replicate.values.effectiveRank);
  }
  out.curvature = interval(curvature, options.confidence);
  out.monotonicity = interval(monotonicity, options.confidence);
  out.effectiveRank = interval(effectiveRank, options.confidence);
  if (ctx) {
    ctx->checkCancelled();
    ctx->progress(1.0, "done");
  }
  return out;
}

}  // namespace strata::geometry
