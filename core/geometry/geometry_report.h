#pragma once
// The geometry of every layer of one activation store, as a scan computes it, the store
// keeps it (/geometry) and the CLI and views show it.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "geometry/layer_geometry.h"
#include "geometry/layer_metric.h"
#include "geometry/score.h"

namespace strata {
namespace io {
class ActivationStore;
}  // namespace io
class JobContext;
}  // namespace strata

namespace strata::geometry {

/** How S and l* are computed from a report: the weight of each of metricSeries(report), in
 *  order (missing ones take their default: 1 for a proxy, 0 for a plugin metric), and the
 *  candidate layers (none: defaultCandidates). */
struct ScoreChoice {
  ScoreWeights weights;
  std::optional<LayerRange> candidates;
};

struct GeometryReport {
  ProxyOptions options;
  std::string backend;                // GeometryBackend::description() of the run
  std::string modelId;                // from the store's /meta
  int64_t numLayers = 0;              // L of the store (layers 0..L exist)
  int64_t numTokens = 0;              // N rows per layer
  std::vector<LayerGeometry> layers;  // ascending layer index
  /**
   * The plugin metrics the scan computed; each layer's pluginValues follow this order. Consumers
   * read the proxies and these together as one list: metricSeries(report) (metric_series.h).
   */
  std::vector<MetricInfo> pluginMetrics;
  /**
   * The weights and candidates S was scored under when the report was written (the store's
   * score_weights and score_candidates), so that every reader picks the l* the front end that
   * scored it printed: scoreReport(report, report.scoredWith). Defaults for a fresh scan and
   * for stores written before the choice was recorded.
   */
  ScoreChoice scoredWith;

  std::vector<int64_t> layerIndices() const;
  std::vector<ProxyValues> values() const;
  /** LayerGeometry::replicates of every layer, in layer order. */
  std::vector<std::vector<ProxyValues>> replicates() const;
};

/** The layers a scan of `store` reads: `layers` sorted and unique (empty: every completed one);
 *  a FormatError naming the first that is not in the store or not finished. */
std::vector<int64_t> layersToScan(const io::ActivationStore& store,
                                  const std::vector<int64_t>& layers);

/**
 * Computes every completed layer of `store` (or only `layers` when given), one layer in memory
 * at a time (two with plugin metrics: l and l−1), reporting progress per layer and per
 * bootstrap resample through `ctx` (stage "scoring layer l of L", L the store's numLayers). Each
 * of `metrics` is computed on every layer (a point
 * value, no bootstrap); a metric that throws is reported through ctx.warning by name, its value
 * for that layer is kUndefined, and the scan goes on. A degenerate layer never ends the scan:
 * its undefined proxies and the reasons are in LayerGeometry::warnings (each also sent to
 * ctx.warning).
 */
GeometryReport scanStore(const io::ActivationStore& store, GeometryBackend& backend,
                         const ProxyOptions& options, JobContext& ctx,
                         const std::vector<int64_t>& layers = {},
                         const std::vector<LayerMetric*>& metrics = {});

/** The group of a store that holds its geometry: what the front ends show and every reader of
 *  "the store's l*" uses. */
inline constexpr const char* kStoreGeometry = "geometry";

/** The group holding a further scan of the store under another normalisation (the studies
 *  report S under each one): "geometry_<normalisation>", e.g. geometry_standardise. Read and
 *  written as /geometry is, and ignored by everything that reads /geometry. */
std::string alternativeGeometryGroup(Normalisation normalisation);

/**
 * Writes the report into the store file as `group` (by default /geometry, replacing an earlier
 * one), with S, its interval and l*'s frequency under `choice`, which its attributes record.
 * The store must not be open for writing elsewhere. Throws IoError / FormatError naming the
 * file.
 */
void writeGeometry(const std::filesystem::path& storeFile, const GeometryReport& report,
                   const ScoreChoice& choice = {}, const std::string& group = kStoreGeometry);

/** The scan a store keeps in `group` (by default /geometry, the one a scan left), or nullopt
 *  when it has none. */
std::optional<GeometryReport> readGeometry(const std::filesystem::path& storeFile,
                                           const std::string& group = kStoreGeometry);

}  // namespace strata::geometry
