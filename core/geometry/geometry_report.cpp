#include "geometry/geometry_report.h"

#include <algorithm>
#include <cmath>
#include <limits>
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

std::vector<double> GeometryReport::pluginSeries(size_t index) const {
  std::vector<double> out;
  for (const auto& layer : layers)
    out.push_back(index < layer.pluginValues.size() ? layer.pluginValues[index]
                                                    : std::numeric_limits<double>::quiet_NaN());
  return out;
}

std::vector<MetricTerm> GeometryReport::pluginTerms(const std::vector<double>& weights) const {
  std::vector<MetricTerm> terms;
  for (size_t m = 0; m < pluginMetrics.size(); ++m)
    terms.push_back({pluginSeries(m), pluginMetrics[m].higherIsBetter,
                     m < weights.size() ? weights[m] : 0.0});
  return terms;
}

namespace {

/**
 * Runs every plugin metric on one layer; a failure becomes NaN and a warning naming the metric
 * and its source, never the end of the scan.
 */
std::vector<double> pluginValues(const std::vector<LayerMetric*>& metrics, const HiddenStates& layer,
                                 const HiddenStates* previous, int64_t index, JobContext& ctx) {
  std::vector<double> values;
  for (LayerMetric* metric : metrics) {
    ctx.checkCancelled();
    double value = std::numeric_limits<double>::quiet_NaN();
    try {
      value = metric->compute(layer, previous);
    } catch (const std::exception& e) {
      ctx.warning("plugin metric " + metric->info().name + " (" + metric->info().source +
                  ") failed on layer " + std::to_string(index) + ": " + e.what() +
                  "; its value there is left empty");
    } catch (...) {
      ctx.warning("plugin metric " + metric->info().name + " (" + metric->info().source +
                  ") failed on layer " + std::to_string(index) + " with an unknown exception");
    }
    values.push_back(value);
  }
  return values;
}

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
                         const std::vector<int64_t>& layers,
                         const std::vector<LayerMetric*>& metrics) {
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
  for (const LayerMetric* metric : metrics) report.pluginMetrics.push_back(metric->info());
  const HiddenStates shape{nullptr, store.numTokens(), store.meta().hiddenSize};
  // Plugin metrics see normalised rows of l and l−1; l−1's are kept from the previous layer
  // when the scan is contiguous, else read again.
  std::vector<float> normalised, previousNormalised;
  int64_t normalisedLayer = -1;
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
    if (metrics.empty()) continue;

    const int64_t before = todo[i] - 1;
    if (normalisedLayer == before) {
      previousNormalised = std::move(normalised);
    } else if (before >= 0 && store.layerComplete(before)) {
      const std::vector<float> rowsBefore = store.readLayer(before);
      previousNormalised = normalisedStates({rowsBefore.data(), shape.rows, shape.cols});
    } else {
      previousNormalised.clear();
    }
    normalised = normalisedStates(states);
    normalisedLayer = todo[i];
    const HiddenStates current{normalised.data(), shape.rows, shape.cols};
    const HiddenStates previous{previousNormalised.data(), shape.rows, shape.cols};
    report.layers.back().pluginValues = pluginValues(
        metrics, current, previousNormalised.empty() ? nullptr : &previous, todo[i], ctx);
  }
  ctx.progress(1.0, "done");
  return report;
}

}  // namespace strata::geometry
