// One list of metric series (geometry/metric_series.h): what a report's list holds, and S over a
// list that mixes the proxies (z of the log) with plugin metrics (z of the value), checked
// against z-scores worked out by hand.

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "geometry/geometry_report.h"
#include "geometry/metric_series.h"
#include "geometry/score.h"
#include "geometry/score_bootstrap.h"

namespace strata::geometry {
namespace {

/** A three-layer report with one plugin metric and two resamples per layer. */
GeometryReport smallReport() {
  GeometryReport report;
  report.numLayers = 3;
  report.pluginMetrics = {{"twonn_id", "intrinsic dimension", false, "/p/libtwonn.so"}};
  for (int64_t l = 1; l <= 3; ++l) {
    LayerGeometry g;
    g.layer = l;
    g.values = {double(l), 10.0 * double(l), 100.0 * double(l)};
    g.curvature = {l - 0.5, l + 0.5};
    g.monotonicity = {10.0 * l - 1, 10.0 * l + 1};
    g.effectiveRank = {100.0 * l - 2, 100.0 * l + 2};
    g.replicates = {{l + 0.1, 10.0 * l, 100.0 * l}, {l - 0.1, 10.0 * l, 100.0 * l}};
    g.pluginValues = {7.0 - double(l)};
    report.layers.push_back(g);
  }
  return report;
}

TEST(MetricSeries, AReportIsTheProxiesThenItsPluginMetrics) {
  const std::vector<MetricSeries> series = metricSeries(smallReport());
  ASSERT_EQ(series.size(), 4u);
  const char* names[] = {"m_curv", "m_mono", "k_eff", "twonn_id"};
  const char* keys[] = {"curvature", "monotonicity", "effective_rank", "twonn_id"};
  const char* weights[] = {"w_c", "w_m", "w_k", "w_twonn_id"};
  for (size_t s = 0; s < 4; ++s) {
    EXPECT_EQ(series[s].info.name, names[s]);
    EXPECT_EQ(series[s].key, keys[s]);
    EXPECT_EQ(series[s].weightName, weights[s]);
    EXPECT_EQ(series[s].builtIn, s < 3);
    EXPECT_EQ(series[s].transform, s < 3 ? ScoreTransform::Log : ScoreTransform::Identity);
    EXPECT_EQ(series[s].defaultWeight(), s < 3 ? 1.0 : 0.0);
  }
  // Direction: k_eff and the plugin are better low.
  EXPECT_TRUE(series[kCurvatureSeries].info.higherIsBetter);
  EXPECT_FALSE(series[kEffectiveRankSeries].info.higherIsBetter);
  EXPECT_FALSE(series[3].info.higherIsBetter);
  EXPECT_EQ(series[3].info.source, "/p/libtwonn.so");

  EXPECT_EQ(series[kMonotonicitySeries].values, (std::vector<double>{10, 20, 30}));
  EXPECT_EQ(series[kEffectiveRankSeries].intervals[1].low, 198);
  EXPECT_EQ(series[kCurvatureSeries].replicates[2], (std::vector<double>{3.1, 2.9}));
  EXPECT_EQ(series[3].values, (std::vector<double>{6, 5, 4}));
  EXPECT_TRUE(series[3].intervals.empty());
  EXPECT_TRUE(series[3].replicates.empty());
}

TEST(MetricSeries, ProxiesEnterSAsLogsAndPluginMetricsAsThemselves) {
  const std::vector<int64_t> layers{1, 2, 3};
  const double e = std::exp(1.0);
  // m_curv = e, e², e³ (log: 1, 2, 3), the other proxies constant.
  std::vector<MetricSeries> series = proxySeries({{e, 1, 1}, {e * e, 1, 1}, {e * e * e, 1, 1}});
  // The same numbers as a plugin metric: z of the values, not of their logs.
  series.push_back(pluginMetricSeries({"p", "", true, ""}, {e, e * e, e * e * e}));
  const LayerRange all{1, 3};

  const LayerScores proxy = scoreLayers(layers, series, {1, 0, 0}, all);
  const double root32 = std::sqrt(1.5);  // z of (1, 2, 3)
  EXPECT_NEAR(proxy.score[0], -root32, 1e-12);
  EXPECT_NEAR(proxy.score[1], 0.0, 1e-12);
  EXPECT_NEAR(proxy.score[2], root32, 1e-12);

  const LayerScores plugin = scoreLayers(layers, series, {0, 0, 0, 2}, all);
  const double x[3] = {e, e * e, e * e * e};
  const double mean = (x[0] + x[1] + x[2]) / 3;
  const double sd = std::sqrt(((x[0] - mean) * (x[0] - mean) + (x[1] - mean) * (x[1] - mean) +
                               (x[2] - mean) * (x[2] - mean)) /
                              3);
  for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(plugin.score[i], 2 * (x[i] - mean) / sd, 1e-12);
  // Not the log's z: the middle layer sits below the mean of e, e², e³.
  EXPECT_LT(plugin.score[1], -0.1);

  // Both at once add up term by term.
  const LayerScores both = scoreLayers(layers, series, {1, 0, 0, 2}, all);
  for (size_t i = 0; i < 3; ++i)
    EXPECT_NEAR(both.score[i], proxy.score[i] + plugin.score[i], 1e-12);
}

TEST(MetricSeries, AProxyIsRequiredWhateverItsWeightAPluginMetricOnlyWhenWeighted) {
  const std::vector<int64_t> layers{1, 2, 3};
  std::vector<MetricSeries> series = proxySeries({{1, 2, 3}, {kUndefined, 2, 3}, {2, 3, 4}});
  series.push_back(pluginMetricSeries({"gap", "", true, ""}, {1, 2, kUndefined}));
  // m_curv weighs 0 and is still required: layer 2 stays out (as S has always done).
  const LayerScores zero = scoreLayers(layers, series, {0, 1, 1}, {1, 3});
  EXPECT_TRUE(std::isnan(zero.score[1]));
  EXPECT_FALSE(std::isnan(zero.score[2]));  // the unweighted plugin metric is ignored
  // Weighted, the plugin metric's gap leaves layer 3 out too, and the warning names it.
  const LayerScores weighted = scoreLayers(layers, series, {0, 1, 1, 1}, {1, 3});
  EXPECT_TRUE(std::isnan(weighted.score[2]));
  ASSERT_EQ(weighted.warnings.size(), 2u);
  EXPECT_EQ(weighted.warnings[0].reason, "left out of S and l*: m_curv is undefined");
  EXPECT_EQ(weighted.warnings[1].reason, "left out of S and l*: plugin metric gap is undefined");
}

TEST(MetricSeries, WeightsDefaultPerSeriesAndMayNotOutnumberTheSeries) {
  const std::vector<MetricSeries> series = metricSeries(smallReport());
  EXPECT_EQ(weightOf(series, {}, kCurvatureSeries), 1.0);
  EXPECT_EQ(weightOf(series, {}, 3), 0.0);
  EXPECT_EQ(weightOf(series, {0.5}, kCurvatureSeries), 0.5);
  EXPECT_EQ(weightOf(series, {0.5}, kMonotonicitySeries), 1.0);
  EXPECT_THROW(scoreLayers({1, 2, 3}, series, {1, 1, 1, 1, 1}, {1, 3}), std::invalid_argument);
  std::vector<MetricSeries> ragged = series;
  ragged[3].values.pop_back();
  EXPECT_THROW(scoreLayers({1, 2, 3}, ragged, {}, {1, 3}), std::invalid_argument);
}

TEST(MetricSeries, APluginMetricEntersEveryResampleWithItsPointValues) {
  // The proxies are equal on every layer and resample (z = 0), so S is the plugin's term alone:
  // lower twonn_id is better, and layer 3 has the lowest on every resample.
  GeometryReport report = smallReport();
  for (LayerGeometry& g : report.layers) {
    g.values = {1, 1, 1};
    g.replicates = {{1, 1, 1}, {1, 1, 1}, {1, 1, 1}};
  }
  const std::vector<MetricSeries> series = metricSeries(report);
  const ScoreBootstrap b = bootstrapScores({1, 2, 3}, series, {1, 1, 1, 1}, {1, 3}, 0.9);
  EXPECT_EQ(b.resamples, 3);
  EXPECT_EQ(b.bestFrequency, (std::vector<double>{0, 0, 1}));
  // Unweighted, every layer ties at S = 0 and the shallowest wins each resample.
  const ScoreBootstrap unweighted = bootstrapScores({1, 2, 3}, series, {}, {1, 3}, 0.9);
  EXPECT_EQ(unweighted.bestFrequency, (std::vector<double>{1, 0, 0}));
}

}  // namespace
}  // namespace strata::geometry
