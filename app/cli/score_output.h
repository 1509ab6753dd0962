#pragma once
// How `strata-cli score` shows a geometry report: an aligned table, CSV or JSON.

#include <string>
#include <vector>

#include "geometry/geometry_report.h"
#include "geometry/metric_series.h"
#include "geometry/score.h"
#include "geometry/score_bootstrap.h"

namespace strata::cli {

struct ScoredReport {
  const geometry::GeometryReport& report;
  /** The report's metric series (geometry::metricSeries): the proxies, then plugin metrics. */
  const std::vector<geometry::MetricSeries>& series;
  const geometry::LayerScores& scores;
  /** One weight per series (missing entries: the series' default). */
  const geometry::ScoreWeights& weights;
  const geometry::LayerRange& candidates;
  /** S intervals and l* frequencies over the bootstrap resamples (resamples 0: none). */
  geometry::ScoreBootstrap bootstrap = {};
  /** Settings-level warnings (terms of S that cancel), beside the per-layer ones. */
  std::vector<std::string> scoreWarnings = {};
};

/**
 * The per-layer table for a terminal: one column per metric series (the proxies with their
 * intervals, then the plugin metrics' point values), score, rank, l* marked. Undefined values read
 * "n/a"; a layer with warnings (its own or the score's) is marked "!" and each warning follows the
 * table as a footnote.
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
