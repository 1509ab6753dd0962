#include "geometry/layer_scan.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "common/job.h"
#include "geometry/backend.h"

namespace strata::geometry {

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

/** Forwards a layer's own progress as its share of the caller's bar, under one stage. */
class LayerShareSink final : public ProgressSink {
 public:
  LayerShareSink(JobContext& outer, double start, double share, std::string stage)
      : m_outer(outer), m_start(start), m_share(share), m_stage(std::move(stage)) {}
  void progress(double fraction, const std::string&) override {
    m_outer.progress(m_start + m_share * std::clamp(fraction, 0.0, 1.0), m_stage);
  }
  void message(MessageLevel level, const std::string& text) override {
    if (level == MessageLevel::Warning)
      m_outer.warning(text);
    else
      m_outer.info(text);
  }

 private:
  JobContext& m_outer;
  double m_start, m_share;
  std::string m_stage;
};

/** The rows normalised as plugins see them, or none when they cannot be (non-finite or
 *  constant rows). */
std::vector<float> normalisedOrNone(const HiddenStates& states, Normalisation mode) {
  try {
    return normalisedStates(states, mode);
  } catch (const std::invalid_argument&) {
    return {};
  }
}

}  // namespace

LayerScan::LayerScan(GeometryBackend& backend, const ProxyOptions& options, const ScanShape& shape,
                     std::vector<int64_t> layers, std::vector<LayerMetric*> metrics)
    : m_backend(backend),
      m_layers(std::move(layers)),
      m_metrics(std::move(metrics)),
      m_hiddenSize(shape.hiddenSize) {
  options.validate();
  m_report.options = options;
  m_report.backend = backend.description();
  m_report.modelId = shape.modelId;
  m_report.numLayers = shape.numLayers;
  m_report.numTokens = shape.numTokens;
  for (const LayerMetric* metric : m_metrics) m_report.pluginMetrics.push_back(metric->info());
}

bool LayerScan::scores(int64_t layer) const {
  return std::binary_search(m_layers.begin(), m_layers.end(), layer);
}

std::vector<int64_t> LayerScan::layersNeeded() const {
  std::vector<int64_t> needed;
  for (int64_t layer : m_layers) {
    if (!m_metrics.empty() && layer > 0 && (needed.empty() || needed.back() != layer - 1))
      needed.push_back(layer - 1);
    needed.push_back(layer);
  }
  return needed;
}

void LayerScan::add(int64_t layer, const float* rows, JobContext& ctx, double start, double share) {
  ctx.checkCancelled();
  const HiddenStates states{rows, m_report.numTokens, m_hiddenSize};
  const Normalisation mode = m_report.options.normalisation;
  if (!scores(layer)) {  // only l−1 of the next layer's plugins
    if (!m_metrics.empty()) {
      m_normalised = normalisedOrNone(states, mode);
      m_normalisedLayer = layer;
    }
    return;
  }
  // Numbered as capture numbers the same hidden states (0 = embeddings … L), so a job that
  // captures and then scores counts one way: "scoring layer 6 of 30" after "… layer 6 of 30".
  const std::string stage =
      "scoring layer " + std::to_string(layer) + " of " + std::to_string(m_report.numLayers);
  LayerShareSink layerShare(ctx, start, share, stage);
  JobContext layerCtx(layerShare, ctx.token());
  m_report.layers.push_back(
      computeLayerGeometry(m_backend, states, layer, m_report.options, &layerCtx));
  LayerGeometry& current = m_report.layers.back();
  for (const ProxyWarning& w : current.warnings) ctx.warning(w.text());
  if (m_metrics.empty()) return;

  // A layer that cannot be normalised gives no plugin values, and a plugin sees no layer l−1
  // when that one could not be normalised (or was not the layer added just before).
  std::vector<float> previous;
  if (m_normalisedLayer == layer - 1) previous = std::move(m_normalised);
  const bool undefinedLayer = !current.warnings.empty() && current.warnings.front().proxy == "all";
  m_normalised = undefinedLayer ? std::vector<float>() : normalisedOrNone(states, mode);
  m_normalisedLayer = layer;
  if (m_normalised.empty()) {
    // An undefined layer's warning ("all") already says why; anything else is named per metric.
    current.pluginValues.assign(m_metrics.size(), kUndefined);
    if (!undefinedLayer)
      for (const LayerMetric* metric : m_metrics)
        current.warnings.push_back(
            {layer, metric->info().name, "the layer's rows cannot be normalised", true});
    return;
  }
  const HiddenStates currentRows{m_normalised.data(), states.rows, states.cols};
  const HiddenStates previousRows{previous.data(), states.rows, states.cols};
  current.pluginValues = pluginValues(m_metrics, currentRows,
                                      previous.empty() ? nullptr : &previousRows, current, ctx);
}

GeometryReport LayerScan::finish() {
  m_normalised.clear();
  return std::move(m_report);
}

}  // namespace strata::geometry
