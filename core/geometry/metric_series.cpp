#include "geometry/metric_series.h"

#include <stdexcept>
#include <utility>

#include "geometry/geometry_report.h"

namespace strata::geometry {
namespace {

/** A built-in proxy: its name, key, description, direction, and how to read it off a layer. */
struct BuiltIn {
  const char* name;
  const char* key;
  const char* weightName;
  const char* description;
  bool higherIsBetter;
  double ProxyValues::*value;
  Interval LayerGeometry::*interval;
};

constexpr BuiltIn kBuiltIns[kBuiltInSeriesCount] = {
    {"m_curv", "curvature", "w_c",
     "Local curvature: median over anchors of 1/λ_max of the k-neighbourhood covariance "
     "(higher = compact neighbourhoods)",
     true, &ProxyValues::curvature, &LayerGeometry::curvature},
    {"m_mono", "monotonicity", "w_m",
     "Global monotonicity: mean Rayleigh quotient of (Σ + εI)⁻¹ over random difference "
     "directions (higher = globally stiff)",
     true, &ProxyValues::monotonicity, &LayerGeometry::monotonicity},
    {"k_eff", "effective_rank", "w_k", "Effective rank tr(Σ)/λ_max(Σ) (lower = low-dimensional)",
     false, &ProxyValues::effectiveRank, &LayerGeometry::effectiveRank},
};

MetricSeries emptyBuiltIn(const BuiltIn& b) {
  MetricSeries s;
  s.info = {b.name, b.description, b.higherIsBetter, "built in"};
  s.key = b.key;
  s.weightName = b.weightName;
  s.builtIn = true;
  s.transform = ScoreTransform::Log;
  return s;
}

}  // namespace

std::vector<MetricSeries> builtInSeries() {
  std::vector<MetricSeries> out;
  for (const BuiltIn& b : kBuiltIns) out.push_back(emptyBuiltIn(b));
  return out;
}

std::vector<MetricSeries> proxySeries(const std::vector<ProxyValues>& values,
                                      const std::vector<std::vector<ProxyValues>>& replicates) {
  if (!replicates.empty() && replicates.size() != values.size())
    throw std::invalid_argument("proxySeries: one replicate list per layer is needed");
  std::vector<MetricSeries> out = builtInSeries();
  for (size_t s = 0; s < out.size(); ++s) {
    const double ProxyValues::*value = kBuiltIns[s].value;
    for (const ProxyValues& v : values) out[s].values.push_back(v.*value);
    bool bootstrapped = false;
    for (const auto& layer : replicates) {
      std::vector<double> resampled;
      for (const ProxyValues& r : layer) resampled.push_back(r.*value);
      bootstrapped = bootstrapped || !resampled.empty();
      out[s].replicates.push_back(std::move(resampled));
    }
    if (!bootstrapped) out[s].replicates.clear();  // not bootstrapped: no replicates at all
  }
  return out;
}

MetricSeries pluginMetricSeries(MetricInfo info, std::vector<double> values) {
  MetricSeries s;
  s.key = info.name;
  s.weightName = "w_" + info.name;
  s.info = std::move(info);
  s.values = std::move(values);
  return s;
}

std::vector<MetricSeries> metricSeries(const GeometryReport& report) {
  std::vector<MetricSeries> out = proxySeries(report.values(), report.replicates());
  for (size_t s = 0; s < out.size(); ++s)
    for (const LayerGeometry& layer : report.layers)
      out[s].intervals.push_back(layer.*kBuiltIns[s].interval);
  for (size_t m = 0; m < report.pluginMetrics.size(); ++m) {
    std::vector<double> values;
    for (const LayerGeometry& layer : report.layers)
      values.push_back(m < layer.pluginValues.size() ? layer.pluginValues[m] : kUndefined);
    out.push_back(pluginMetricSeries(report.pluginMetrics[m], std::move(values)));
  }
  return out;
}

}  // namespace strata::geometry
