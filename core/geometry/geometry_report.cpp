#include "geometry/geometry_report.h"

#include <algorithm>
#include <string>

#include "common/error.h"
#include "engine/job.h"
#include "io/activation_store.h"

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

namespace {

/** Forwards a layer's own progress as its share of the whole scan. */
class LayerShareSink final : public ProgressSink {
 public:
  LayerShareSink(JobContext& outer, size_t index, size_t count, std::string stage)
      : m_outer(outer), m_index(index), m_count(count), m_stage(std::move(stage)) {}
  void progress(double fraction, const std::string&) override {
    m_outer.progress((double(m_index) + std::clamp(fraction, 0.0, 1.0)) / double(m_count), m_stage);
  }
  void message(MessageLevel level, const std::string& text) override {
    if (level == MessageLevel::Warning) m_outer.warning(text);
    else m_outer.info(text);
  }

 private:
  JobContext& m_outer;
  size_t m_index, m_count;
  std::string m_stage;
};

}  // namespace

GeometryReport scanStore(const ActivationStore& store, GeometryBackend& backend,
                         const ProxyOptions& options, JobContext& ctx,
                         const std::vector<int64_t>& layers) {
  options.validate();
  std::vector<int64_t> todo = layers.empty() ? store.completedLayers() : layers;
  std::sort(todo.begin(), todo.end());
  todo.erase(std::unique(todo.begin(), todo.end()), todo.end());
  for (int64_t layer : todo)
    if (!store.layerComplete(layer))
      throw FormatError(store.path(), "layer " + std::to_string(layer) + " is not in the store or not finished",
                        "layers/" + std::to_string(layer), "dataset");

  GeometryReport report;
  report.options = options;
  report.backend = backend.description();
  report.modelId = store.meta().modelId;
  report.numLayers = store.meta().numLayers;
  report.numTokens = store.numTokens();
  const HiddenStates shape{nullptr, store.numTokens(), store.meta().hiddenSize};
  for (size_t i = 0; i < todo.size(); ++i) {
    ctx.checkCancelled();
    const std::string stage = "layer " + std::to_string(todo[i]) + " (" + std::to_string(i + 1) + "/" +
                              std::to_string(todo.size()) + ")";
    ctx.progress(double(i) / double(todo.size()), stage);
    const std::vector<float> rows = store.readLayer(todo[i]);
    HiddenStates states = shape;
    states.data = rows.data();
    LayerShareSink share(ctx, i, todo.size(), stage);
    JobContext layerCtx(share, ctx.token());
    report.layers.push_back(computeLayerGeometry(backend, states, todo[i], options, &layerCtx));
  }
  ctx.progress(1.0, "done");
  return report;
}

}  // namespace strata::geometry
