#pragma once
// The one home of "score a store": scan its layers on a backend, score them under a choice of
// weights and candidate layers, and keep the result in the store's /geometry. The CLI, the
// workbench, the geometry cache, bridge sweeps and studies all go through here, so what a front
// end shows is the ScoredGeometry returned, and /geometry holds the same S.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "geometry/backend.h"
#include "geometry/geometry_report.h"
#include "geometry/metric_series.h"
#include "geometry/score.h"
#include "geometry/score_bootstrap.h"

namespace strata {
class JobContext;
}

namespace strata::geometry {

/** S, l*, their bootstrap and the settings' warnings under one choice of weights and
 *  candidates. */
struct ScoredLayers {
  ScoreWeights weights;   // one per series (the choice's, defaults filled in)
  LayerRange candidates;  // the choice's, or defaultCandidates
  LayerScores scores;
  ScoreBootstrap bootstrap;  // S intervals and l* frequencies (none without replicates)
  std::vector<std::string> scoreWarnings;  // settings-level: terms of S that cancel
};

/** A report scored under a choice: the value every front end prints and /geometry stores. */
struct ScoredGeometry : ScoredLayers {
  GeometryReport report;
  std::vector<MetricSeries> series;  // metricSeries(report): the proxies, then plugin metrics
};

/** The scoring itself, for `series` of a report's `layers` (metricSeries, layerIndices) scanned
 *  with `options` over a store of `numLayers` layers. Views that rescore as weights change call
 *  this with the series they keep; everything else goes through scoreReport. No I/O. */
ScoredLayers scoreSeries(const std::vector<int64_t>& layers,
                         const std::vector<MetricSeries>& series, const ProxyOptions& options,
                         int64_t numLayers, const ScoreChoice& choice = {});

/** `report` scored under `choice` (scoreSeries on its series). No I/O. */
ScoredGeometry scoreReport(GeometryReport report, const ScoreChoice& choice = {});

/** What to score and how. */
struct StoreScoring {
  std::filesystem::path store;
  ProxyOptions options;
  DeviceChoice device = DeviceChoice::Auto;
  std::vector<int64_t> layers;         // empty: every completed layer
  std::vector<LayerMetric*> metrics;   // plugin metrics, computed on every layer
  ScoreChoice choice;                  // weights and candidates of S
  bool writeGeometry = true;           // keep the result in the store, as `group`
  std::string group = kStoreGeometry;  // /geometry, or an alternativeGeometryGroup
};

/**
 * Refuses, before anything is planned, loaded or captured, a choice that could not be scored on a
 * model or store of hidden states 0..numLayers: a requested layer outside them, candidates that
 * reach beyond them, candidates that hold none of the layers scored (S and l* would be
 * undefined everywhere). A ConfigError on `source` naming the field ("layers", "candidates").
 */
void checkLayerChoice(const std::vector<int64_t>& layers, const ScoreChoice& choice,
                      int64_t numLayers, const std::filesystem::path& source);

/**
 * Scans request.store on a backend of request.device (job.info names it), scores the report
 * under request.choice and, when asked, writes it as /geometry (the store is closed first).
 * A cancelled scan throws CancelledError before anything is written.
 */
ScoredGeometry scoreStore(const StoreScoring& request, JobContext& job);

/** Writes a scored report as the store's `group` (replacing an earlier one); see
 *  writeGeometry(path, report, choice, group). */
void writeGeometry(const std::filesystem::path& storeFile, const ScoredGeometry& scored,
                   const std::string& group = kStoreGeometry);

}  // namespace strata::geometry
