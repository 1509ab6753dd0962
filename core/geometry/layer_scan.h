#pragma once
// A geometry scan fed one layer at a time: the per-layer work behind scanStore (the layers read
// from a store) and behind scoring a capture as it runs (engine/capture_scoring.h, the layers
// as their forward passes finish). Both feed the same rows through here, so both give the same
// report.

#include <cstdint>
#include <string>
#include <vector>

#include "geometry/geometry_report.h"

namespace strata {
class JobContext;
}  // namespace strata

namespace strata::geometry {

class GeometryBackend;

/** What a scan knows of the hidden states before the first layer arrives. */
struct ScanShape {
  std::string modelId;     // the store's /meta@model_id
  int64_t numLayers = 0;   // L: hidden states 0..L exist (0 = the embeddings)
  int64_t numTokens = 0;   // N rows per layer
  int64_t hiddenSize = 0;  // d
};

/**
 * Scores `layers` (ascending, unique, each in 0..L) from rows handed over in ascending order.
 * Plugin metrics also see layer l−1's normalised rows, so with metrics the scan wants the layer
 * before each scored one too (layersNeeded()); it keeps one such layer's normalised rows at a
 * time, so its memory is the rows being scored plus two normalised layers (l and l−1), and with
 * no metrics the rows being scored alone. Not thread-safe; the backend and the metrics must
 * outlive it.
 */
class LayerScan {
 public:
  LayerScan(GeometryBackend& backend, const ProxyOptions& options, const ScanShape& shape,
            std::vector<int64_t> layers, std::vector<LayerMetric*> metrics);

  /** Whether add() scores `layer` (otherwise it keeps it only as l−1 of the next one). */
  bool scores(int64_t layer) const;
  /** The layers to hand over, ascending: the scored ones and, with metrics, each one's l−1. */
  std::vector<int64_t> layersNeeded() const;

  /**
   * Layer `layer`'s N×d row-major rows (read during the call only). A scored layer's proxies,
   * bootstrap and plugin values join the report, its warnings go to ctx.warning, and its
   * progress moves ctx's bar from `start` to `start + share` under the stage "scoring layer l
   * of L". Layers come in ascending order; a plugin sees layer l−1 only when it was the layer
   * added just before l. Throws CancelledError through ctx.
   */
  void add(int64_t layer, const float* rows, JobContext& ctx, double start = 0.0,
           double share = 1.0);

  /** The report of the layers scored so far, in order; the scan is spent. */
  GeometryReport finish();

 private:
  GeometryBackend& m_backend;
  std::vector<int64_t> m_layers;
  std::vector<LayerMetric*> m_metrics;
  GeometryReport m_report;
  int64_t m_hiddenSize = 0;
  // With plugin metrics: the normalised rows of the layer added last (empty when they could
  // not be normalised), which the next layer's plugins see as l−1.
  std::vector<float> m_normalised;
  int64_t m_normalisedLayer = -1;
};

}  // namespace strata::geometry
