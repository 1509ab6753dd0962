// What a run logged (see run_metrics.h).

#include "engine/run_metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/error.h"

namespace strata::engine {

namespace {
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
}

LoggedSeries loggedSeries(const std::vector<MetricsRecord>& records, const std::string& key) {
  LoggedSeries series;
  for (const MetricsRecord& r : records)
    if (r.has(key) && std::isfinite(r.value(key))) series.emplace_back(r.step, r.value(key));
  return series;
}

double minimumOf(const LoggedSeries& series) {
  double best = kNan;
  for (const auto& [step, value] : series)
    if (!(value >= best)) best = value;  // NaN best takes the first value
  return best;
}

double lastOf(const LoggedSeries& series) { return series.empty() ? kNan : series.back().second; }

double meanOf(const LoggedSeries& series) {
  if (series.empty()) return kNan;
  double sum = 0;
  for (const auto& [step, value] : series) sum += value;
  return sum / static_cast<double>(series.size());
}

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

RunMetrics::RunMetrics(std::filesystem::path file, std::vector<MetricsRecord> records)
    : m_file(std::move(file)), m_records(std::move(records)) {}

LoggedSeries RunMetrics::validationLoss() const {
  LoggedSeries val = series("val_loss");
  if (val.empty()) throw FormatError(m_file, "has no validation loss", "val_loss", "key");
  return val;
}

}  // namespace strata::engine
