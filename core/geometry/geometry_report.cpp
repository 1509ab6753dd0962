#include "geometry/geometry_report.h"

#include <algorithm>
#include <string>

#include "common/error.h"
#include "common/job.h"
#include "geometry/layer_scan.h"
#include "io/store/activation_store.h"

namespace strata::geometry {

std::vector<int64_t> GeometryReport::layerIndices() const {
  std::vector<int64_t> out;
  for (const auto& layer : layers) out.push_back(layer.layer);
  return out;
}

std::vector<ProxyValues> GeometryReport::values() const {
  std::vector<ProxyValues> out;
  for (const auto& layer : layers) out.push_back(layer.values);
  return out;
}

std::vector<std::vector<ProxyValues>> GeometryReport::replicates() const {
  std::vector<std::vector<ProxyValues>> out;
  for (const auto& layer : layers) out.push_back(layer.replicates);
  return out;
}

std::vector<int64_t> layersToScan(const io::ActivationStore& store,
                                  const std::vector<int64_t>& layers) {
  std::vector<int64_t> todo = layers.empty() ? store.completedLayers() : layers;
  std::sort(todo.begin(), todo.end());
  todo.erase(std::unique(todo.begin(), todo.end()), todo.end());
  for (int64_t layer : todo)
    if (!store.layerComplete(layer))
      throw FormatError(store.path(),
                        "layer " + std::to_string(layer) + " is not in the store or not finished",
                        "layers/" + std::to_string(layer), "dataset");
  return todo;
}

GeometryReport scanStore(const io::ActivationStore& store, GeometryBackend& backend,
                         const ProxyOptions& options, JobContext& ctx,
                         const std::vector<int64_t>& layers,
                         const std::vector<LayerMetric*>& metrics) {
  options.validate();
  const std::vector<int64_t> todo = layersToScan(store, layers);

  LayerScan scan(backend, options,
                 {.modelId = store.meta().modelId,
                  .numLayers = store.meta().numLayers,
                  .numTokens = store.numTokens(),
                  .hiddenSize = store.meta().hiddenSize},
                 todo, metrics);
  for (size_t i = 0; i < todo.size(); ++i) {
    ctx.checkCancelled();
    const double start = double(i) / double(todo.size()), share = 1.0 / double(todo.size());
    ctx.progress(start, "scoring layer " + std::to_string(todo[i]) + " of " +
                            std::to_string(store.meta().numLayers));
    // Plugins see l−1 too: read it when the scan did not just score it (and the store has it).
    const int64_t before = todo[i] - 1;
    if (!metrics.empty() && before >= 0 && (i == 0 || todo[i - 1] != before) &&
        store.layerComplete(before))
      scan.add(before, store.readLayer(before).data(), ctx);
    scan.add(todo[i], store.readLayer(todo[i]).data(), ctx, start, share);
  }
  ctx.progress(1.0, "done");
  return scan.finish();
}

}  // namespace strata::geometry
