#include "geometry/layer_geometry.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/job.h"
#include "geometry/bootstrap_interval.h"
#include "geometry/layer_screening.h"
#include "geometry/median.h"

namespace strata::geometry {

namespace {

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
 * m_curv of one resample: the median of 1/λ_max over the point estimate's anchors, each
 * counted as often as the resample holds its token (`weights`, one per row). The token
 * resample drives the anchors only: the neighbour candidates stay all N rows, because a
 * resample holds only ~63% distinct rows, which widens every neighbourhood and biases m_curv
 * low (docs/geometry.md, "Intervals"). +∞ when the median neighbourhood has zero spread; NaN
 * when the resample holds none of the anchors.
 */
double weightedCurvature(const std::vector<double>& localLambdaMax,
                         const std::vector<int64_t>& anchors, std::span<const float> weights) {
  std::vector<double> resampled;
  for (size_t i = 0; i < anchors.size() && i < localLambdaMax.size(); ++i)
    for (int c = 0; c < int(weights[anchors[i]]); ++c) resampled.push_back(localLambdaMax[i]);
  if (resampled.empty()) return kUndefined;
  return reportedCurvature(resampled);
}

// Streams of options.seed: 0 is the point estimate's sampling (options.seed itself). Resample r
// draws its row counts from stream 2r and its own sampling from stream 2r + 1 of
// deriveSeed(options.seed, kBootstrapStream) — the same on every layer, so that the layers of
// one resample hold the same tokens and S and l* can be recomputed per resample.
constexpr uint64_t kBootstrapStream = 0x5eed;
uint64_t resampleSeed(uint64_t seed, int64_t resample, bool sampling) {
  return deriveSeed(deriveSeed(seed, kBootstrapStream),
                    2 * static_cast<uint64_t>(resample) + (sampling ? 1 : 0));
}

/** Multiplies m_curv and m_mono (values, intervals, replicates) by f and λs by 1/f. */
void scaleUnits(LayerGeometry& g, double f) {
  const auto times = [f](double& v) { v *= f; };
  for (ProxyValues* v : {&g.values}) times(v->curvature), times(v->monotonicity);
  for (ProxyValues& v : g.replicates) times(v.curvature), times(v.monotonicity);
  for (Interval* i : {&g.curvature, &g.monotonicity}) times(i->low), times(i->high);
  for (double& l : g.spectrum) l /= f;
  for (double& l : g.localLambdaMax) l /= f;
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

/**
 * m_mono's interval when no resample's Σ has full rank: a resample holds ~63 % distinct rows, so
 * with at most d of them its Σ_r is singular (rank ≤ distinct − 1 < d) where the layer's has
 * more directions, and the ridge ε of Σ_r + εI fills the missing ones. m_mono inverts exactly
 * that matrix, so its replicates shift as a whole (measured: every layer of an N = d = 4,096
 * store had its point outside the interval). Said before any shift is seen, with what to change.
 */
void warnSingularResamples(int64_t mostDistinct, int64_t layerDistinct, int64_t d,
                           const std::function<void(const char*, std::string)>& warn) {
  if (mostDistinct > d || mostDistinct >= layerDistinct) return;
  // N·(1 − 1/e) distinct rows in expectation: more than d from N ≈ 1.58·d.
  const auto enough = int64_t(std::ceil(1.6 * double(d)));
  warn("m_mono", "interval not reliable: the bootstrap resamples hold at most " +
                     std::to_string(mostDistinct) + " distinct rows (the layer " +
                     std::to_string(layerDistinct) + "), no more than d = " + std::to_string(d) +
                     ", so every resample's Σ is singular and the ridge fills its missing "
                     "directions; m_mono's replicates are biased. Capture several times d "
                     "tokens (at least " +
                     std::to_string(enough) + ") for an interval that can be read");
}

/** Below this many resamples a point outside its interval is not noted (chance is too likely). */
constexpr int64_t kNoteResamples = 10;

/**
 * One evaluation the bootstrap asks of the backend: the rows of weight > 0 (curvature off).
 * `evaluated` is false where none is asked (the rows are copies of one row, tr(Σ) = 0, or a
 * jackknife block leaves no pair: every proxy undefined); `directions` is false where every
 * sampled pair is a zero direction (m_mono undefined, so the min-eig form stands in for the
 * backend's sake only).
 */
struct PlannedEvaluation {
  bool evaluated = false;
  bool directions = true;
  size_t request = 0;  // its index in the batch
};

/** Adds the evaluation of rows of at least two distinct values to `batch`. */
PlannedEvaluation plan(const RowScreening& screening, std::vector<float> weights,
                       TokenSampling sampling, const ProxyOptions& options,
                       std::vector<ProxyRequest>& batch,
                       std::pair<int64_t, int64_t> deletedBlock = {0, 0}) {
  PlannedEvaluation out;
  ProxyOptions own = options;
  if (options.monotonicity == MonotonicityMode::Rayleigh &&
      everyPairIsZero(screening, sampling.pairs)) {
    own.monotonicity = MonotonicityMode::MinEigenvalue;
    out.directions = false;
  }
  out.evaluated = true;
  out.request = batch.size();
  batch.push_back({std::move(weights), std::move(sampling), own, deletedBlock});
  return out;
}

/** The proxies a planned evaluation gave (curvature undefined: the caller reweights it). */
ProxyValues valuesOf(const PlannedEvaluation& planned, const std::vector<ProxyOutcome>& outcomes) {
  if (!planned.evaluated) return {kUndefined, kUndefined, kUndefined};
  const ProxyOutcome& o = outcomes[planned.request];
  if (o.error) std::rethrow_exception(o.error);
  return {kUndefined, planned.directions ? o.result.values.monotonicity : kUndefined,
          o.result.values.effectiveRank};
}

/** A layer's bootstrap, drawn before anything is evaluated: the batch and what each entry is. */
struct BootstrapPlan {
  std::vector<ProxyRequest> batch;  // the point estimate's request first, when it was given
  std::vector<std::vector<float>> resampleWeights, jackknifeWeights;
  std::vector<PlannedEvaluation> planned, jackknifePlan;
  int64_t degenerate = 0, zeroDirections = 0, mostDistinct = 0;
};

/**
 * The bootstrap of one layer (docs/geometry.md, "Intervals"): `resamples` token resamples (the
 * same rows on every layer, see resampleSeed) give the replicates of every proxy; with
 * jackknifeBlocks = G > 0, G delete-one-block jackknife values (contiguous token blocks, so
 * the tokens of one sequence mostly leave together) give BCa's acceleration, else the
 * intervals are percentile ones. Every evaluation is drawn first and handed to the backend as
 * one batch, after `point` (the point estimate's own request): the CPU backend runs them side by
 * side, the point's single-threaded stretches (its eigensolvers, the neighbour selection)
 * beside resamples instead of beside an idle core.
 */
BootstrapPlan planBootstrap(const HiddenStates& states, const RowScreening& screening,
                            const TokenSampling& pointSampling, const ProxyOptions& pointOptions,
                            const ProxyOptions& options, ProxyRequest point) {
  const int64_t resamples = options.bootstrapResamples;
  ProxyOptions resampleOptions = pointOptions;
  resampleOptions.spectrumSize = 1;   // k_eff needs λ_max only
  resampleOptions.curvature = false;  // m_curv reweights the point estimate's anchors instead

  BootstrapPlan p;
  p.batch.push_back(std::move(point));
  // The resamples' rows and samplings (their seeds make them the same on every layer), drawn in
  // parallel (each from its own seeds), then planned in order.
  std::vector<std::vector<float>> weights(size_t(std::max<int64_t>(resamples, 0)));
  std::vector<int64_t> distinct(weights.size());
  std::vector<TokenSampling> samplings(weights.size());
  std::vector<std::exception_ptr> failed(weights.size());
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t r = 0; r < resamples; ++r) {
    try {
      weights[r] = drawBootstrapWeights(states.rows, resampleSeed(options.seed, r, false));
      distinct[r] = distinctRowsOfPositiveWeight(screening, weights[r]);
      if (distinct[r] >= 2)
        samplings[r] = drawTokenSampling(states.rows, weights[r], resampleOptions,
                                         resampleSeed(options.seed, r, true));
    } catch (...) {
      failed[r] = std::current_exception();
    }
  }
  for (int64_t r = 0; r < resamples; ++r) {
    if (failed[r]) std::rethrow_exception(failed[r]);
    p.mostDistinct = std::max(p.mostDistinct, distinct[r]);
    if (distinct[r] < 2) {
      p.planned.push_back({});  // copies of one row: tr(Σ) = 0
      ++p.degenerate;
    } else {
      p.planned.push_back(
          plan(screening, weights[r], std::move(samplings[r]), resampleOptions, p.batch));
      if (!p.planned.back().directions) ++p.zeroDirections;
    }
    p.resampleWeights.push_back(std::move(weights[r]));
  }

  // Delete-one-block jackknife: block g = rows [g·N/G, (g+1)·N/G), with the point estimate's
  // anchors and pairs that avoid it (no new randomness enters the acceleration).
  const int64_t blocks = options.jackknifeBlocks;
  for (int64_t g = 0; g < blocks && states.rows >= 2 * blocks; ++g) {
    const int64_t begin = states.rows * g / blocks, end = states.rows * (g + 1) / blocks;
    std::vector<float> weights(states.rows, 1.0f);
    std::fill(weights.begin() + begin, weights.begin() + end, 0.0f);
    const auto kept = [&](int64_t row) { return row < begin || row >= end; };
    TokenSampling own;
    for (int64_t a : pointSampling.anchors)
      if (kept(a)) own.anchors.push_back(a);
    for (const auto& pair : pointSampling.pairs)
      if (kept(pair.first) && kept(pair.second)) own.pairs.push_back(pair);
    if (own.anchors.empty()) own.anchors.push_back(begin == 0 ? end : 0);
    const bool evaluate =
        (!own.pairs.empty() || resampleOptions.monotonicity == MonotonicityMode::MinEigenvalue) &&
        distinctRowsOfPositiveWeight(screening, weights) >= 2;
    p.jackknifePlan.push_back(
        evaluate ? plan(screening, weights, std::move(own), resampleOptions, p.batch, {begin, end})
                 : PlannedEvaluation{});
    p.jackknifeWeights.push_back(std::move(weights));
  }
  return p;
}

/**
 * The replicates, the intervals and their warnings from the batch's outcomes (the point's
 * included, at index 0), once the point estimate is in `out`.
 */
void finishBootstrap(const BootstrapPlan& p, const std::vector<ProxyOutcome>& outcomes,
                     const HiddenStates& states, const RowScreening& screening,
                     const TokenSampling& pointSampling, const ProxyOptions& pointOptions,
                     const ProxyOptions& options, LayerGeometry& out) {
  const int64_t layer = out.layer, resamples = options.bootstrapResamples;
  const auto warn = [&](const char* proxy, std::string reason) {
    out.warnings.push_back({layer, proxy, std::move(reason), false});
  };
  const bool curvature = pointOptions.curvature && isDefined(out.values.curvature);
  const auto& planned = p.planned;
  const auto& jackknifePlan = p.jackknifePlan;
  const auto& resampleWeights = p.resampleWeights;
  const auto& jackknifeWeights = p.jackknifeWeights;
  const int64_t degenerate = p.degenerate, zeroDirections = p.zeroDirections;
  for (int64_t r = 0; r < resamples; ++r) {
    ProxyValues replicate;
    try {
      replicate = valuesOf(planned[size_t(r)], outcomes);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("bootstrap resample " + std::to_string(r + 1) + " of layer " +
                                  std::to_string(layer) + ": " + e.what());
    }
    if (curvature)
      replicate.curvature =
          weightedCurvature(out.localLambdaMax, pointSampling.anchors, resampleWeights[size_t(r)]);
    out.replicates.push_back(replicate);
  }
  std::vector<ProxyValues> jackknife;
  for (size_t g = 0; g < jackknifePlan.size(); ++g) {
    ProxyValues value = valuesOf(jackknifePlan[g], outcomes);
    if (curvature)
      value.curvature =
          weightedCurvature(out.localLambdaMax, pointSampling.anchors, jackknifeWeights[g]);
    jackknife.push_back(value);
  }

  const auto series = [](const std::vector<ProxyValues>& v, double ProxyValues::*member) {
    std::vector<double> out;
    for (const ProxyValues& p : v) out.push_back(p.*member);
    return out;
  };
  const bool bca = !jackknife.empty();
  const auto intervalOf = [&](double ProxyValues::*member, double point, const char* proxy) {
    const std::vector<double> replicates = series(out.replicates, member);
    if (!bca) return percentileInterval(replicates, options.confidence);
    bool outside = false;
    const Interval i =
        bcaInterval(replicates, point, series(jackknife, member), options.confidence, &outside);
    // With few resamples every replicate falls on one side of an unbiased point by chance
    // (probability 2^(1−B)): the note is only worth reading from kNoteResamples on.
    if (outside && resamples >= kNoteResamples) {
      // Every defined replicate on one side of the point: z₀ = ±∞, BCa has no interval.
      const bool oneSide = std::all_of(replicates.begin(), replicates.end(),
                                       [&](double v) { return std::isnan(v) || v > point; }) ||
                           std::all_of(replicates.begin(), replicates.end(),
                                       [&](double v) { return std::isnan(v) || v < point; });
      warn(proxy, std::string("the point value lies outside its interval: the resampled values "
                              "are biased relative to it") +
                      (oneSide ? " (every resample lies on one side, so BCa has no interval and "
                                 "the percentile one is shown)"
                               : ""));
    }
    return i;
  };
  if (curvature) {
    out.curvature = intervalOf(&ProxyValues::curvature, out.values.curvature, "m_curv");
    const auto replicates = series(out.replicates, &ProxyValues::curvature);
    const auto infinite =
        std::count_if(replicates.begin(), replicates.end(), [](double v) { return std::isinf(v); });
    if (!isDefined(out.curvature.low) || !isDefined(out.curvature.high))
      warn("m_curv",
           "an interval bound is undefined (n/a): " + countText(infinite, resamples, "resamples") +
               " of the anchors have a zero-spread median neighbourhood (1/λ_max = +∞)");
  }
  if (isDefined(out.values.monotonicity)) {
    out.monotonicity = intervalOf(&ProxyValues::monotonicity, out.values.monotonicity, "m_mono");
    if (resamples > 0 && pointOptions.monotonicity == MonotonicityMode::Rayleigh)
      warnSingularResamples(p.mostDistinct, screening.distinctRows, states.cols, warn);
  }
  if (isDefined(out.values.effectiveRank))
    out.effectiveRank = intervalOf(&ProxyValues::effectiveRank, out.values.effectiveRank, "k_eff");
  if (degenerate > 0)
    warn("k_eff", "interval from " + std::to_string(resamples - degenerate) + " of " +
                      std::to_string(resamples) + " resamples; " +
                      countText(degenerate, resamples, "resamples") +
                      " drew copies of a single row (tr(Σ) = 0) and were left out");
  if (degenerate + zeroDirections > 0 && isDefined(out.values.monotonicity))
    warn("m_mono",
         "interval from " + std::to_string(resamples - degenerate - zeroDirections) + " of " +
             std::to_string(resamples) +
             " resamples; the others drew a single distinct row or only identical pairs (u = 0)");
}

}  // namespace

LayerGeometry computeLayerGeometry(GeometryBackend& backend, const HiddenStates& input,
                                   int64_t layer, const ProxyOptions& options, JobContext* ctx) {
  options.validate();
  const int64_t resamples = options.bootstrapResamples;
  // The point estimate counts as one evaluation, then the bootstrap's batch (its resamples and
  // jackknife blocks) one each.
  const std::function<void(int64_t, int64_t)> report = [&](int64_t done, int64_t total) {
    if (ctx == nullptr) return;
    ctx->checkCancelled();
    ctx->progress(
        double(done + (total > 0 ? 1 : 0)) / double(total + 1),
        total == 0 ? "proxies" : "bootstrap " + std::to_string(done) + "/" + std::to_string(total));
  };
  report(0, 0);

  // Degenerate layers are recognised here, before any backend runs, so that both backends see
  // only layers on which the requested proxies exist and report them the same way.
  const RowScreening screening = screenRows(input);
  if (const std::string why = undefinedReason(screening); !why.empty()) {
    if (ctx) ctx->progress(1.0, "done");
    return undefinedLayer(layer, why);
  }
  // Huge or tiny entries: an exact power-of-two rescale. The proxies are scale-invariant under
  // `trace` and `standardise`; under `none` m_curv and m_mono scale as 1/factor², undone at the
  // end.
  std::vector<float> rescaled;
  HiddenStates states = input;
  const double factor = rescaleFactor(screening.maxAbs);
  if (factor != 1.0) {
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
         "needs at least k + 1 = " + std::to_string(k + 1) + " rows for k = " + std::to_string(k) +
             " neighbours; the layer has " + std::to_string(states.rows),
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

  // With a bootstrap the point estimate is the first request of its batch; alone, one call.
  std::optional<BootstrapPlan> boot;
  std::vector<ProxyOutcome> outcomes;
  ProxyResult point;
  if (resamples > 0) {
    boot = planBootstrap(states, screening, sampling, pointOptions, options,
                         ProxyRequest{{}, sampling, pointOptions, {0, 0}});
    const auto evaluations = int64_t(boot->batch.size());
    // Reported as when the point ran alone before the batch: the batch's evaluations from the
    // second on (the first finished is counted as the point's); cancellation is checked at each.
    outcomes = backend.computeBatch(states, boot->batch, [&](int64_t done) {
      if (done > 1)
        report(done - 1, evaluations - 1);
      else if (ctx)
        ctx->checkCancelled();
    });
    if (outcomes.front().error) std::rethrow_exception(outcomes.front().error);
    point = std::move(outcomes.front().result);
  } else {
    point = backend.computeProxies(states, {}, sampling, pointOptions);
  }
  if (point.constantDimensions > 0)
    warn("normalisation",
         std::to_string(point.constantDimensions) + " of " + std::to_string(states.cols) +
             " dimensions have zero variance; `standardise` leaves them at 0",
         false);
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
  if (boot)
    finishBootstrap(*boot, outcomes, states, screening, sampling, pointOptions, options, out);
  if (options.normalisation == Normalisation::None && factor != 1.0)
    scaleUnits(out, factor * factor);
  if (ctx) {
    ctx->checkCancelled();
    ctx->progress(1.0, "done");
  }
  return out;
}

}  // namespace strata::geometry
