#include "geometry/geometry_report.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "common/error.h"
#include "common/job.h"
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

std::vector<std::vector<ProxyValues>> GeometryReport::replicates() const {
  std::vector<std::vector<ProxyValues>> out;
  for (const auto& layer : layers) out.push_back(layer.replicates);
  return out;
}

namespace {

/**
 * Runs every plugin metric on one layer; a failure or an infinite value becomes kUndefined and a
 * warning on the layer (a failure also through ctx) naming the metric, never the end of the scan.
 * NaN is the plugin contract's "not defined for this layer" and stays undefined silently.
 */
std::vector<double> pluginValues(const std::vector<LayerMetric*>& metrics,
                                 const HiddenStates& layer, const HiddenStates* previous,
                                 LayerGeometry& out, JobContext& ctx) {
  std::vector<double> values;
  const std::string where = " on layer " + std::to_string(out.layer);
  for (LayerMetric* metric : metrics) {
    ctx.checkCancelled();
    const std::string& name = metric->info().name;
    double value = kUndefined;
    std::string failure;
    try {
      value = metric->compute(layer, previous);
    } catch (const std::exception& e) {
      failure = std::string("failed: ") + e.what();
    } catch (...) {
      failure = "failed with an unknown exception";
    }
    if (!failure.empty()) {
      ctx.warning("plugin metric " + name + " (" + metric->info().source + ") " + failure + where +
                  "; its value there is left empty");
      out.warnings.push_back({out.layer, name, failure, true});
    } else if (!isDefined(value) && !std::isnan(value)) {
      // NaN is the plugin's own "not defined here" (e.g. no layer l−1): undefined, no warning.
      out.warnings.push_back({out.layer, name, "the plugin returned an infinite value", true});
      value = kUndefined;
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
    if (level == MessageLevel::Warning)
      m_outer.warning(text);
    else
      m_outer.info(text);
  }

 private:
  JobContext& m_outer;
  size_t m_index, m_count;
  std::string m_stage;
};

}  // namespace

GeometryReport scanStore(const io::ActivationStore& store, GeometryBackend& backend,
                         const ProxyOptions& options, JobContext& ctx,
                         const std::vector<int64_t>& layers,
                         const std::vector<LayerMetric*>& metrics) {
  options.validate();
  std::vector<int64_t> todo = layers.empty() ? store.completedLayers() : layers;
  std::sort(todo.begin(), todo.end());
  todo.erase(std::unique(todo.begin(), todo.end()), todo.end());
  for (int64_t layer : todo)
    if (!store.layerComplete(layer))
      throw FormatError(store.path(),
                        "layer " + std::to_string(layer) + " is not in the store or not finished",
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
    // Numbered as capture numbers the same hidden states (0 = embeddings … L), so a job that
    // captures and then scores counts one way: "scoring layer 6 of 30" after "… layer 6 of 30".
    const std::string stage = "scoring layer " + std::to_string(todo[i]) + " of " +
                              std::to_string(store.meta().numLayers);
    ctx.progress(double(i) / double(todo.size()), stage);
    const std::vector<float> rows = store.readLayer(todo[i]);
    HiddenStates states = shape;
    states.data = rows.data();
    LayerShareSink share(ctx, i, todo.size(), stage);
    JobContext layerCtx(share, ctx.token());
    report.layers.push_back(computeLayerGeometry(backend, states, todo[i], options, &layerCtx));
    LayerGeometry& current = report.layers.back();
    for (const ProxyWarning& w : current.warnings) ctx.warning(w.text());
    if (metrics.empty()) continue;

    // A layer that cannot be normalised (non-finite or constant rows) gives no plugin values,
    // and a plugin sees no layer l−1 when that one cannot be normalised.
    const auto normalisable = [&](const HiddenStates& s, std::vector<float>& into) {
      try {
        into = normalisedStates(s, options.normalisation);
      } catch (const std::invalid_argument&) {
        into.clear();
      }
    };
    const int64_t before = todo[i] - 1;
    if (normalisedLayer == before) {
      previousNormalised = std::move(normalised);
    } else if (before >= 0 && store.layerComplete(before)) {
      const std::vector<float> rowsBefore = store.readLayer(before);
      normalisable({rowsBefore.data(), shape.rows, shape.cols}, previousNormalised);
    } else {
      previousNormalised.clear();
    }
    const bool undefinedLayer =
        !current.warnings.empty() && current.warnings.front().proxy == "all";
    if (undefinedLayer)
      normalised.clear();
    else
      normalisable(states, normalised);
    normalisedLayer = todo[i];
    if (normalised.empty()) {
      // An undefined layer's warning ("all") already says why; anything else is named per metric.
      current.pluginValues.assign(metrics.size(), kUndefined);
      if (!undefinedLayer)
        for (const LayerMetric* metric : metrics)
          current.warnings.push_back(
              {todo[i], metric->info().name, "the layer's rows cannot be normalised", true});
      continue;
    }
    const HiddenStates currentRows{normalised.data(), shape.rows, shape.cols};
    const HiddenStates previous{previousNormalised.data(), shape.rows, shape.cols};
    current.pluginValues = pluginValues(
        metrics, currentRows, previousNormalised.empty() ? nullptr : &previous, current, ctx);
  }
  ctx.progress(1.0, "done");
  return report;
}

}  // namespace strata::geometry
