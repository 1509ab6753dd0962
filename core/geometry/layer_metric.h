#pragma once
// Extra per-layer metrics computed by a geometry scan beside m_curv, m_mono and k_eff: in
// practice the metrics of plugins (plugin/plugin_metric.h adapts them), but geometry/ knows only
// this interface, so it depends on nothing of the plugin machinery.

#include <string>
#include <vector>

#include "geometry/proxy_options.h"

namespace strata::geometry {

/** What a metric is, as the report, the store, the score and the views need it. */
struct MetricInfo {
  std::string name;            // unique, e.g. "twonn_id"
  std::string description;     // one line
  bool higherIsBetter = true;  // the sign of its term in S(l)
  std::string source;          // where it comes from (the plugin's file), for reports; may be empty
};

/**
 * One metric. compute() receives the layer's rows normalised as for the proxies (columns
 * centred, tr(Σ) = d) and layer l−1's rows normalised the same way, or null when layer l−1 is
 * not in the store. Returns the value (NaN: not defined for this layer); throws strata::Error
 * naming the metric when it fails. One object serves one call at a time.
 */
class LayerMetric {
 public:
  virtual ~LayerMetric() = default;
  virtual const MetricInfo& info() const = 0;
  virtual double compute(const HiddenStates& layer, const HiddenStates* previous) = 0;
};

/**
 * The rows of `states` normalised as the proxies see them: each column centred, then scaled
 * per `mode` (DESIGN.md; `trace`: tr(Σ) = d). Throws std::invalid_argument for non-finite or
 * constant rows (as the proxies do).
 */
std::vector<float> normalisedStates(const HiddenStates& states,
                                    Normalisation mode = Normalisation::Trace);

}  // namespace strata::geometry
