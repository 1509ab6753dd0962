#pragma once
// One layer's geometry: the proxies at the options' seed, their bootstrap intervals over token
// resamples (BCa, or percentile without jackknife blocks), the replicates that let S and l* be
// bootstrapped too, and the spectrum and local λ_max distribution that the detail view plots.

#include <cstdint>
#include <vector>

#include "geometry/backend.h"
#include "geometry/proxy_warning.h"

namespace strata {
class JobContext;
}

namespace strata::geometry {

/** A bootstrap interval; low == high == the value when no resamples were drawn. */
struct Interval {
  double low = 0;
  double high = 0;
};

struct LayerGeometry {
  int64_t layer = 0;
  ProxyValues values;
  Interval curvature;
  Interval monotonicity;
  Interval effectiveRank;
  std::vector<double> spectrum;        // leading eigenvalues of Σ, descending
  std::vector<double> localLambdaMax;  // one per anchor
  /**
   * The proxies of each bootstrap resample r (kUndefined where a resample is degenerate). The
   * resamples hold the same tokens on every layer (docs/geometry.md, "Intervals"), so entry r
   * of all layers together gives S and l* of resample r (score_bootstrap.h).
   */
  std::vector<ProxyValues> replicates;
  /** One value per GeometryReport::pluginMetrics entry (NaN: undefined here, or it failed). */
  std::vector<double> pluginValues;
  /**
   * Why a value above is undefined (kUndefined) or needs care, one entry per proxy and reason
   * (docs/geometry.md, "Degenerate layers"). Empty for a well-behaved layer.
   */
  std::vector<ProxyWarning> warnings;
};

/**
 * Computes one layer: proxies on all rows with the sampling drawn from options.seed, then
 * options.bootstrapResamples resamples of the rows with replacement (each with its own
 * sampling; the same row counts on every layer) and options.jackknifeBlocks delete-one-block
 * jackknife evaluations for BCa. `ctx` (may be null) is checked for cancellation between resamples.
 * Degenerate layers (non-finite values, all rows equal, fewer than k + 1 rows, zero-spread
 * neighbourhoods, huge or tiny norms) never throw: the affected proxies are kUndefined with a
 * warning in LayerGeometry::warnings (docs/geometry.md, "Degenerate layers").
 */
LayerGeometry computeLayerGeometry(GeometryBackend& backend, const HiddenStates& states,
                                   int64_t layer, const ProxyOptions& options,
                                   JobContext* ctx = nullptr);

}  // namespace strata::geometry
