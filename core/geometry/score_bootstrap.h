#pragma once
// Intervals for S(l) and l* (docs/geometry.md, "Intervals"): the token resamples behind the
// proxy intervals hold the same tokens on every layer, so each resample r gives a whole set of
// proxies, hence S_r over the candidates and l*_r. Cheap (no proxy is recomputed): the views
// call it again when the weights or candidates change.

#include <cstdint>
#include <vector>

#include "geometry/layer_geometry.h"
#include "geometry/metric_series.h"
#include "geometry/score.h"

namespace strata::geometry {

struct ScoreBootstrap {
  /** Percentile interval of S_r(l) per layer (kUndefined outside the candidates or when no
   *  resample scored the layer). */
  std::vector<Interval> score;
  /** Share of the resamples whose l* is this layer (the shares sum to ≤ 1: a resample with no
   *  candidate of defined proxies has no l*); kUndefined outside the candidates and for a
   *  layer that no resample could score. */
  std::vector<double> bestFrequency;
  /** The interval does not contain the point S (docs/geometry.md, "Intervals": extreme S
   *  values shrink toward 0 on resamples); false where either is undefined. */
  std::vector<bool> excludesPoint;
  int64_t resamples = 0;  // 0: no bootstrap (intervals and frequencies are undefined)
};

/**
 * Recomputes S and l* on every resample. A series with replicates (MetricSeries::replicates:
 * the proxies, one list per layer, each holding one value per resample) takes its resample
 * values; a layer without replicates (undefined: no proxy was computed) is undefined on every
 * resample. A series without replicates (plugin metrics: not bootstrapped) enters each resample
 * with its point values. No series with replicates means no bootstrap (resamples 0). Throws
 * std::invalid_argument when a series has not one value (or replicate list) per layer or the
 * layers hold different numbers of resamples.
 */
ScoreBootstrap bootstrapScores(const std::vector<int64_t>& layers,
                               const std::vector<MetricSeries>& series, const ScoreWeights& weights,
                               const LayerRange& candidates, double confidence);

}  // namespace strata::geometry
