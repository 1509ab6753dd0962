#pragma once
// How `strata-cli score` shows a geometry report: an aligned table, CSV or JSON.

#include <string>
#include <vector>

#include "geometry/geometry_report.h"
#include "geometry/score.h"
#include "geometry/score_bootstrap.h"

namespace strata::cli {

struct ScoredReport {
  const geometry::GeometryReport& report;
  const geometry::LayerScores& scores;
  const geometry::ScoreWeights& weights;
  const geometry::LayerRange& candidates;
  /** Weight of each of report.pluginMetrics in S (empty: all 0). */
  std::vector<double> pluginWeights = {};
  /** S intervals and l* frequencies over the bootstrap resamples (resamples 0: none). */
  geometry::ScoreBootstrap bootstrap = {};
  /** Settings-level warnings (terms of S that cancel), beside the per-layer ones. */
  std::vector<std::string> scoreWarnings = {};
};

/**
 * The per-layer table for a terminal: proxies with intervals, plugin metrics (one column each,
 * point values), score, rank, l* marked. Undefined values read "n/a"; a layer with warnings
 * (its own or the score's) is marked "!" and each warning follows the table as a footnote.
 */
std::string formatScoreTable(const ScoredReport& scored);
/**
 * One header line and one line per layer (RFC 4180, full precision); plugin metrics last.
 * Undefined values are empty cells.
 */
std::string formatScoreCsv(const ScoredReport& scored);
/**
 * The whole report: options, backend, weights, candidates, per-layer values, l*. Undefined
 * values are null; each layer has a "warnings" array and the document one with them all
 * ({layer, proxy, reason, undefined}).
 */
std::string formatScoreJson(const ScoredReport& scored);

}  // namespace strata::cli
