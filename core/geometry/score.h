#pragma once
// The DiHAL selection score and l*: S(l) = w_c·z(log m_curv) + w_m·z(log m_mono)
// − w_k·z(log k_eff), each z-scored over the candidate layers, plus ± w_p·z(p) for every plugin
// metric p given a weight (+ when higher is better). Cheap: the views call it on every slider
// move, with no recomputation of the proxies.

#include <cstdint>
#include <string>
#include <vector>

#include "geometry/backend.h"
#include "geometry/proxy_warning.h"

namespace strata::geometry {

struct ScoreWeights {
  double curvature = 1;
  double monotonicity = 1;
  double effectiveRank = 1;
};

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
 * One plugin metric's term of S: its value per layer (in the order of `layers`), its direction
 * and its weight. The value is z-scored as it is (no log: a plugin metric may be zero or
 * negative, e.g. a similarity).
 */
struct MetricTerm {
  std::vector<double> values;
  bool higherIsBetter = true;
  double weight = 0;
  /** For warnings ("plugin metric <name> is undefined"); may be empty. */
  std::string name = {};
};

/**
 * Scores `values[i]` of layer `layers[i]`. z uses the population standard deviation over the
 * candidates with defined proxies (S is always finite there); a proxy that is constant over them
 * contributes 0. Non-positive or non-finite (undefined) proxy values make that layer's score
 * kUndefined and exclude it from l*, with a warning in LayerScores::warnings; so does a non-finite value of
 * a plugin metric whose weight is not 0 (a term of weight 0 is ignored entirely, so the default
 * weights leave S exactly as without plugins). Throws std::invalid_argument when a term has
 * not one value per layer.
 */
LayerScores scoreLayers(const std::vector<int64_t>& layers, const std::vector<ProxyValues>& values,
                        const ScoreWeights& weights, const LayerRange& candidates,
                        const std::vector<MetricTerm>& pluginTerms = {});

}  // namespace strata::geometry
