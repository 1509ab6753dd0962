// Numbers read from a run's metrics log (see study_run_metrics.h).

#include "studies/study_run_metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace strata {
namespace {
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
}

MetricSeries metricSeries(const std::vector<MetricsRecord>& records, const std::string& key) {
  MetricSeries series;
  for (const MetricsRecord& r : records)
    if (r.has(key) && std::isfinite(r.value(key))) series.emplace_back(r.step, r.value(key));
  return series;
}

double minimumOf(const MetricSeries& series) {
  double best = kNan;
  for (const auto& [step, value] : series)
    if (!(value >= best)) best = value;  // NaN best takes the first value
  return best;
}

double lastOf(const MetricSeries& series) { return series.empty() ? kNan : series.back().second; }

double trainingSeconds(const std::vector<MetricsRecord>& records) {
  struct Interval {
    int64_t steps;
    double tokensPerSecond, wall;
  };
  std::vector<Interval> intervals;
  int64_t previousStep = 0;
  double previousWall = kNan;
  for (const MetricsRecord& r : records) {
    if (!r.has("tokens_per_s")) continue;
    const double tps = r.value("tokens_per_s");
    if (r.step > previousStep && tps > 0)
      intervals.push_back({r.step - previousStep, tps, r.wallTime - previousWall});
    previousStep = r.step;
    previousWall = r.wallTime;
  }
  std::vector<double> tokensPerStep;
  for (const Interval& i : intervals)
    if (std::isfinite(i.wall) && i.wall > 0)
      tokensPerStep.push_back(i.tokensPerSecond * i.wall / static_cast<double>(i.steps));
  if (tokensPerStep.size() < 2) return kNan;
  std::nth_element(tokensPerStep.begin(), tokensPerStep.begin() + tokensPerStep.size() / 2,
                   tokensPerStep.end());
  const double perStep = tokensPerStep[tokensPerStep.size() / 2];
  double seconds = 0;
  for (const Interval& i : intervals)
    seconds += static_cast<double>(i.steps) * perStep / i.tokensPerSecond;
  return seconds;
}

}  // namespace strata
