#pragma once
// Every per-layer metric of a geometry report as one list: the three built-in proxies (m_curv,
// m_mono, k_eff, bootstrapped) followed by the plugin metrics (point values). The score, the
// table, the plots, the weight controls, `strata-cli score` and /geometry all loop over this
// list, so a metric added by a plugin appears everywhere the proxies do.

#include <cstddef>
#include <string>
#include <vector>

#include "geometry/backend.h"
#include "geometry/layer_geometry.h"
#include "geometry/layer_metric.h"

namespace strata::geometry {

struct GeometryReport;

/** How a series enters S before it is z-scored. */
enum class ScoreTransform {
  Log,      // z(log x): the proxies, which are positive and vary over orders of magnitude
  Identity  // z(x): plugin metrics, which may be zero or negative (a similarity, a distance)
};

struct MetricSeries {
  /** Name ("m_curv", "twonn_id"), description, direction (the sign of its term in S), source. */
  MetricInfo info;
  /**
   * The series' name in /geometry's datasets and in score JSON's "weights": curvature,
   * monotonicity, effective_rank for the proxies; the metric's name for a plugin.
   */
  std::string key;
  /** Its weight's name in S: w_c, w_m, w_k for the proxies, w_<name> for a plugin metric. */
  std::string weightName;
  /** A built-in proxy: computed by every scan, bootstrapped, weight 1 by default, and defined at
   *  every layer S scores whatever its weight. A plugin metric weighs 0 by default and is
   *  required only when weighted. */
  bool builtIn = false;
  ScoreTransform transform = ScoreTransform::Identity;
  /** One value per layer of the report, in its order (kUndefined: not defined there). */
  std::vector<double> values;
  /** One bootstrap interval per layer; empty for a series without intervals (plugins). */
  std::vector<Interval> intervals;
  /** Per layer, the value on each token resample (LayerGeometry::replicates); empty for a
   *  series that is not bootstrapped, and for a layer without resamples. */
  std::vector<std::vector<double>> replicates;

  /** The weight a series has until someone sets one: 1 for a proxy, 0 for a plugin metric. */
  double defaultWeight() const { return builtIn ? 1.0 : 0.0; }
};

/** Positions of the built-in proxies in every series list: they always come first. */
enum BuiltInSeries : std::size_t {
  kCurvatureSeries = 0,
  kMonotonicitySeries = 1,
  kEffectiveRankSeries = 2,
  kBuiltInSeriesCount = 3
};

/** The three built-in series with no values (what they are, for controls made before a report). */
std::vector<MetricSeries> builtInSeries();

/**
 * The built-in series over proxy values given directly: values[i] of the i-th layer and, when
 * given, replicates[i] its values on the token resamples (LayerGeometry::replicates). No
 * intervals. Throws std::invalid_argument when replicates has not one list per layer.
 */
std::vector<MetricSeries> proxySeries(const std::vector<ProxyValues>& values,
                                      const std::vector<std::vector<ProxyValues>>& replicates = {});

/** A plugin metric's series (Identity transform, no intervals). */
MetricSeries pluginMetricSeries(MetricInfo info, std::vector<double> values);

/** The report's series: m_curv, m_mono, k_eff with intervals and replicates, then each plugin
 *  metric in GeometryReport::pluginMetrics order. */
std::vector<MetricSeries> metricSeries(const GeometryReport& report);

}  // namespace strata::geometry
