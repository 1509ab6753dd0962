#pragma once
// How `strata-cli score` shows a geometry report: an aligned table, CSV or JSON.

#include <string>
#include <vector>

#include "geometry/store_scoring.h"

namespace strata::cli {

/**
 * The per-layer table for a terminal: one column per metric series (the proxies with their
 * intervals, then the plugin metrics' point values), score, rank, l* marked. Undefined values read
 * "n/a"; a layer with warnings (its own or the score's) is marked "!" and each warning follows the
 * table as a footnote.
 */
std::string formatScoreTable(const geometry::ScoredGeometry& scored);
/**
 * One header line and one line per layer (RFC 4180, full precision); plugin metrics last.
 * Undefined values are empty cells.
 */
std::string formatScoreCsv(const geometry::ScoredGeometry& scored);
/**
 * The whole report: options, backend, weights, candidates, per-layer values, l*. Undefined
 * values are null; each layer has a "warnings" array and the document one with them all
 * ({layer, proxy, reason, undefined}).
 */
std::string formatScoreJson(const geometry::ScoredGeometry& scored);

}  // namespace strata::cli
