#include "geometry/layer_geometry.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>

#include "engine/job.h"
#include "geometry/layer_screening.h"
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
  if (fraction == 0) return values[below];  // never 0·∞
  return values[below] + fraction * (values[above] - values[below]);
}

/**
 * m_curv as reported from the per-anchor λ_max(C_i): the median of 1/λ_max, or +∞ when the median
 * falls on a zero-spread neighbourhood (λ_max = 0 by definition; the floored value would put an
 * arbitrary 1e12 there). Sorted ascending in 1/λ_max the z zero-spread anchors come last, so the
 * median touches one of them exactly when 2z ≥ M (odd M: the middle one; even M: the upper of
 * the two middle ones).
 */
double reportedCurvature(const std::vector<double>& lambdaMax) {
  const auto z = std::count_if(lambdaMax.begin(), lambdaMax.end(), zeroSpread);
  if (2 * size_t(z) >= lambdaMax.size()) return std::numeric_limits<double>::infinity();
  return curvatureFromLambdaMax(lambdaMax);
}

/**
 * m_curv of one bootstrap replicate: the median of 1/λ_max over a resample (with replacement)
 * of the point estimate's anchors. Resampling the anchors, not the neighbour candidates, keeps
 * the density of the neighbour search: a token resample holds only ~63% distinct rows, which
 * widens every neighbourhood and biases m_curv low. +∞ when the resample's median neighbourhood
 * has zero spread.
 */
double resampledCurvature(const std::vector<double>& localLambdaMax, uint64_t seed) {
  const std::vector<float> counts = drawBootstrapWeights(int64_t(localLambdaMax.size()), seed);
  std::vector<double> resampled;
  resampled.reserve(localLambdaMax.size());
  for (size_t i = 0; i < counts.size(); ++i)
    for (int c = 0; c < int(counts[i]); ++c) resampled.push_back(localLambdaMax[i]);
  return reportedCurvature(resampled);
}

/**
 * The percentile interval of the defined (finite or +∞) replicates; NaN replicates (degenerate
 * resamples) are left out. A bound that is not finite (it touches a +∞ replicate) or that no
 * replicate supports is kUndefined.
 */
Interval interval(std::vector<double> values, double confidence) {
  std::erase_if(values, [](double v) { return std::isnan(v); });
  if (values.empty()) return {kUndefined, kUndefined};
  const double tail = (1.0 - confidence) / 2.0;
  const auto bound = [](double v) { return isDefined(v) ? v : kUndefined; };
  return {bound(percentile(values, tail)), bound(percentile(values, 1.0 - tail))};
}

// Streams of options.seed: 0 is the point estimate's sampling (options.seed itself); resample r
// of layer l draws its row counts from stream 2·(r+1) and its own sampling from stream
// 2·(r+1) + 1 of deriveSeed(options.seed, l).
uint64_t resampleSeed(uint64_t seed, int64_t layer, int64_t resample, bool sampling) {
  const uint64_t layerSeed = deriveSeed(seed, static_cast<uint64_t>(layer));
  return deriveSeed(layerSeed, 2 * static_cast<uint64_t>(resample + 1) + (sampling ? 1 : 0));
}

std::string percentText(int64_t part, int64_t whole) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f%%", 100.0 * double(part) / double(whole));
  return buffer;
}

std::string countText(int64_t part, int64_t whole, const char* what) {
  return std::to_string(part) + " of " + std::to_string(whole) + " " + what + " (" +
         percentText(part, whole) + ")";
}

/** A layer on which no proxy is defined: every value and bound kUndefined, one warning. */
LayerGeometry undefinedLayer(int64_t layer, std::string reason) {
  LayerGeometry out;
  out.layer = layer;
  out.values = {kUndefined, kUndefined, kUndefined};
  out.curvature = out.monotonicity = out.effectiveRank = {kUndefined, kUndefined};
  out.warnings.push_back({layer, "all", std::move(reason), true});
  return out;
}

/** Why a layer has no defined proxy at all, or "" when the proxies can be computed. */
std::string undefinedReason(const RowScreening& screening) {
  if (screening.rows < 1) return "the layer has no rows";
  if (screening.nonFiniteRows > 0)
    return "the hidden states hold " + std::to_string(screening.nonFiniteValues) +
           " NaN or infinite values in " +
           countText(screening.nonFiniteRows, screening.rows, "rows") +
           "; no proxy is computed on corrupt hidden states (re-capture the layer)";
  if (screening.rows < 2) return "the layer has one row; the covariance needs at least two";
  if (screening.distinctRows < 2)
    return "all " + std::to_string(screening.rows) +
           " rows are equal: tr(Σ) = 0, so the normalisation to tr(Σ) = d divides by zero";
  return {};
}

}  // namespace

LayerGeometry computeLayerGeometry(GeometryBackend& backend, const HiddenStates& input,
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

  // Degenerate layers are recognised here, before any backend runs, so that both backends see
  // only layers on which the requested proxies exist and report them the same way.
  const RowScreening screening = screenRows(input);
  if (const std::string why = undefinedReason(screening); !why.empty()) {
    if (ctx) ctx->progress(1.0, "done");
    return undefinedLayer(layer, why);
  }
  // Huge or tiny entries: an exact power-of-two rescale (the proxies are scale-invariant).
  std::vector<float> rescaled;
  HiddenStates states = input;
  if (const double factor = rescaleFactor(screening.maxAbs); factor != 1.0) {
    const size_t count = size_t(input.rows) * size_t(input.cols);
    rescaled.resize(count);
    for (size_t i = 0; i < count; ++i) rescaled[i] = float(double(input.data[i]) * factor);
    states.data = rescaled.data();
  }

  LayerGeometry out;
  out.layer = layer;
  const auto warn = [&](const char* proxy, std::string reason, bool undefined) {
    out.warnings.push_back({layer, proxy, std::move(reason), undefined});
  };
  const int64_t k = options.neighbours;
  ProxyOptions pointOptions = options;
  if (options.curvature && states.rows < k + 1) {
    pointOptions.curvature = false;
    warn("m_curv",
         "needs at least k + 1 = " + std::to_string(k + 1) + " rows for k = " +
             std::to_string(k) + " neighbours; the layer has " + std::to_string(states.rows),
         true);
  }
  const bool rayleigh = options.monotonicity == MonotonicityMode::Rayleigh;
  const TokenSampling sampling = drawTokenSampling(states.rows, {}, options, options.seed);
  bool monotonicityDefined = true;
  if (rayleigh && everyPairIsZero(screening, sampling.pairs)) {
    // The min-eig form only avoids the backend's refusal; its value is not reported.
    pointOptions.monotonicity = MonotonicityMode::MinEigenvalue;
    monotonicityDefined = false;
    warn("m_mono",
         "every one of the " + std::to_string(sampling.pairs.size()) +
             " sampled pairs joins two identical rows (u = 0): no direction to measure",
         true);
  }

  ProxyResult point = backend.computeProxies(states, {}, sampling, pointOptions);
  out.values = point.values;
  out.spectrum = std::move(point.spectrum);
  out.localLambdaMax = std::move(point.localLambdaMax);
  if (!monotonicityDefined) out.values.monotonicity = kUndefined;
  if (!pointOptions.curvature) {
    out.values.curvature = kUndefined;
  } else {
    const int64_t m = int64_t(out.localLambdaMax.size());
    const int64_t z =
        std::count_if(out.localLambdaMax.begin(), out.localLambdaMax.end(), zeroSpread);
    out.values.curvature = reportedCurvature(out.localLambdaMax);
    if (!isDefined(out.values.curvature)) {
      out.values.curvature = kUndefined;
      warn("m_curv",
           countText(z, m, "anchors") +
               " have zero-spread neighbourhoods (their k nearest neighbours coincide, e.g. "
               "duplicated tokens): λ_max(C_i) = 0, so the median of 1/λ_max is +∞",
           true);
    } else if (z > 0) {
      warn("m_curv",
           countText(z, m, "anchors") +
               " have zero-spread neighbourhoods (duplicated tokens?); they count as 1/λ_max = "
               "1e12 and the median lies below them",
           false);
    }
  }
  // A safety net: a non-finite value from a backend becomes undefined, with a reason.
  const auto checkFinite = [&](double& value, const char* proxy) {
    if (isDefined(value)) return;
    value = kUndefined;
    warn(proxy, "the backend returned a non-finite value", true);
  };
  checkFinite(out.values.effectiveRank, "k_eff");
  if (monotonicityDefined) checkFinite(out.values.monotonicity, "m_mono");
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
  int64_t degenerate = 0, zeroDirections = 0;
  for (int64_t r = 0; r < resamples; ++r) {
    report(r + 1);
    if (pointOptions.curvature)
      curvature.push_back(
          resampledCurvature(out.localLambdaMax, resampleSeed(options.seed, layer, r, true) + 1));
    const std::vector<float> weights =
        drawBootstrapWeights(states.rows, resampleSeed(options.seed, layer, r, false));
    if (distinctRowsOfPositiveWeight(screening, weights) < 2) {
      // The resample drew copies of one row only: tr(Σ) = 0, no replicate of m_mono or k_eff.
      ++degenerate;
      monotonicity.push_back(kUndefined);
      effectiveRank.push_back(kUndefined);
      continue;
    }
    ProxyResult replicate;
    bool replicateMonotonicity = true;
    try {
      const TokenSampling own = drawTokenSampling(states.rows, weights, resampleOptions,
                                                  resampleSeed(options.seed, layer, r, true));
      ProxyOptions replicateOptions = resampleOptions;
      if (rayleigh && everyPairIsZero(screening, own.pairs)) {
        replicateOptions.monotonicity = MonotonicityMode::MinEigenvalue;
        replicateMonotonicity = false;
        ++zeroDirections;
      }
      replicate = backend.computeProxies(states, weights, own, replicateOptions);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("bootstrap resample " + std::to_string(r + 1) + " of layer " +
                                  std::to_string(layer) + ": " + e.what());
    }
    monotonicity.push_back(replicateMonotonicity ? replicate.values.monotonicity : kUndefined);
    effectiveRank.push_back(replicate.values.effectiveRank);
  }
  if (isDefined(out.values.curvature)) {
    out.curvature = interval(curvature, options.confidence);
    const auto infinite = std::count_if(curvature.begin(), curvature.end(),
                                        [](double v) { return std::isinf(v); });
    if (!isDefined(out.curvature.low) || !isDefined(out.curvature.high))
      warn("m_curv",
           "an interval bound is undefined (n/a): " + countText(infinite, resamples, "resamples") +
               " of the anchors have a zero-spread median neighbourhood (1/λ_max = +∞)",
           false);
  }
  if (isDefined(out.values.monotonicity))
    out.monotonicity = interval(monotonicity, options.confidence);
  if (isDefined(out.values.effectiveRank))
    out.effectiveRank = interval(effectiveRank, options.confidence);
  if (degenerate > 0)
    warn("k_eff",
         "interval from " + std::to_string(resamples - degenerate) + " of " +
             std::to_string(resamples) + " resamples; " +
             countText(degenerate, resamples, "resamples") +
             " drew copies of a single row (tr(Σ) = 0) and were left out",
         false);
  if (degenerate + zeroDirections > 0 && isDefined(out.values.monotonicity))
    warn("m_mono",
         "interval from " + std::to_string(resamples - degenerate - zeroDirections) + " of " +
             std::to_string(resamples) +
             " resamples; the others drew a single distinct row or only identical pairs (u = 0)",
         false);
  if (ctx) {
    ctx->checkCancelled();
    ctx->progress(1.0, "done");
  }
  return out;
}

}  // namespace strata::geometry
