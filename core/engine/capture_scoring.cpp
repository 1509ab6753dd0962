#include "engine/capture_scoring.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <optional>

#include "common/error.h"
#include "common/job.h"
#include "engine/capture_sink.h"
#include "geometry/layer_scan.h"
#include "geometry/scan_memory.h"
#include "io/store/stored_values.h"

namespace strata::engine {

namespace {

/** A capture's sink that scores each layer as it arrives (geometry/layer_scan.h). */
class ScanSink final : public CaptureSink {
 public:
  ScanSink(const geometry::StoreScoring& scoring, geometry::GeometryBackend& backend)
      : m_scoring(scoring), m_backend(backend) {}

  std::vector<int64_t> begin(const CaptureStart& start) override {
    const int64_t L = start.meta.numLayers;
    m_dtype = start.meta.dtype;
    std::vector<int64_t> layers = m_scoring.layers;
    if (layers.empty())
      for (int64_t l = 0; l <= L; ++l) layers.push_back(l);
    std::sort(layers.begin(), layers.end());
    layers.erase(std::unique(layers.begin(), layers.end()), layers.end());
    geometry::checkLayerChoice(layers, m_scoring.choice, L, start.config.modelFolder);
    m_scan.emplace(m_backend, m_scoring.options,
                   geometry::ScanShape{.modelId = start.meta.modelId,
                                       .numLayers = L,
                                       .numTokens = static_cast<int64_t>(start.tokens.size()),
                                       .hiddenSize = start.meta.hiddenSize},
                   std::move(layers), m_scoring.metrics);
    return m_scan->layersNeeded();
  }

  void consume(int64_t layer, at::Tensor rows, JobContext& job) override {
    // What a store of this dtype would serve back, so that the scan sees the same values.
    const int64_t beyond =
        io::roundAsStored({rows.data_ptr<float>(), static_cast<size_t>(rows.numel())}, m_dtype);
    if (beyond >= 0)
      throw Error("layer " + std::to_string(layer) + ": value " +
                  std::to_string(rows.data_ptr<float>()[beyond]) + " at row " +
                  std::to_string(beyond / rows.size(1)) +
                  " is outside the float16 range (±65504) that a store of this capture keeps; "
                  "capture it with `capture --dtype float32` and score that store");
    m_scan->add(layer, rows.data_ptr<float>(), job);
  }

  void finish() override {}

  int64_t plannedBytes(int64_t rows, int64_t hiddenSize) override {
    m_memory = geometry::scanMemory(rows, hiddenSize, m_scoring.options, !m_scoring.metrics.empty(),
                                    m_backend);
    return m_memory.needed() - m_memory.rows;  // the rows are the capture's own
  }
  void spareMemory(int64_t bytes) override {
    m_memory.lanesWithin(m_memory.needed() + bytes, m_backend.laneThreads());
    m_backend.limitLanes(m_memory.lanes);
  }

  /** A fixed split: the forward passes and the scoring each move half of a layer's bar (their
   *  real ratio depends on the model, the device and the bootstrap). */
  double layerShare() const override { return 0.5; }

  std::string keptBefore(int64_t) const override { return {}; }

  geometry::GeometryReport report() { return m_scan->finish(); }

 private:
  const geometry::StoreScoring& m_scoring;
  geometry::GeometryBackend& m_backend;
  io::StoreDType m_dtype = io::StoreDType::Float16;
  std::optional<geometry::LayerScan> m_scan;
  geometry::ScanMemory m_memory;
};

}  // namespace

geometry::ScoredGeometry captureAndScore(const CaptureConfig& config,
                                         const geometry::StoreScoring& scoring, JobContext& job) {
  const auto backend = geometry::makeGeometryBackend(scoring.device);
  job.info("scoring on " + backend->description() + " as each layer is captured");
  ScanSink sink(scoring, *backend);
  runCapture(config, sink, job);
  job.checkCancelled();
  return geometry::scoreReport(sink.report(), scoring.choice);
}

}  // namespace strata::engine
