#pragma once
// The DiHAL selection score and l*: S(l) = Σ_s ± w_s·z(T_s(x_s(l))) over the metric series s
// (metric_series.h) — w_c·z(log m_curv) + w_m·z(log m_mono) − w_k·z(log k_eff) for the built-in
// proxies, plus ± w_p·z(p) for every plugin metric p given a weight (+ when higher is better) —
// each z-scored over the candidate layers. Cheap: the views call it on every slider move, with
// no recomputation of the proxies.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "geometry/metric_series.h"
#include "geometry/proxy_warning.h"

namespace strata::geometry {

/**
 * One weight per metric series, in series order (metric_series.h: w_c, w_m, w_k, then each
 * plugin metric). A missing entry takes its series' default: 1 for a proxy, 0 for a plugin
 * metric, so `{}` is the default score and `{1, 0, 0}` is m_curv alone.
 */
using ScoreWeights = std::vector<double>;

/** Candidate layers, inclusive; by default 1..L−1 (see defaultCandidates). */
struct LayerRange {
  int64_t first = 0;
  int64_t last = 0;
  bool contains(int64_t layer) const { return layer >= first && layer <= last; }
};

/** 1..L−1 for a store with layers 0..L; the whole range when L < 2. */
LayerRange defaultCandidates(int64_t numLayers);

struct LayerScores {
  /** S(l) per entry of `layers`; NaN for layers outside the candidates. */
  std::vector<double> score;
  /** 1 = best among the candidates; 0 outside them. */
  std::vector<int> rank;
  /** Index into `layers` of l* (argmax of S over candidates); -1 when there is none. */
  int64_t bestIndex = -1;
  /**
   * One entry (proxy "S", undefined) per candidate layer left out of the z-scores and l*
   * because a proxy (or a weighted plugin metric) is undefined there, naming which.
   */
  std::vector<ProxyWarning> warnings;
};

/**
 * Scores layer `layers[i]` from `series[s].values[i]` (metric_series.h). z uses the population
 * standard deviation over the candidates with defined values (S is always finite there); a
 * series that is constant over them contributes 0. A layer is left out of the z-scores and l*,
 * with a warning in LayerScores::warnings naming the series, when a built-in proxy is undefined
 * or non-positive there, or a weighted plugin metric is undefined there (a plugin metric of
 * weight 0 is ignored entirely, so the default weights leave S exactly as without plugins).
 * Throws std::invalid_argument when a series has not one value per layer or there are more
 * weights than series.
 */
LayerScores scoreLayers(const std::vector<int64_t>& layers, const std::vector<MetricSeries>& series,
                        const ScoreWeights& weights, const LayerRange& candidates);

/** The weight of series `index`: weights[index], or the series' default when not given. */
double weightOf(const std::vector<MetricSeries>& series, const ScoreWeights& weights,
                std::size_t index);

}  // namespace strata::geometry
