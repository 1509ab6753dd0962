#pragma once
// Numbers every study reads from a run's metrics.jsonl: a metric's series over steps, its best
// and last value, and the run's training wall clock. No torch here.

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "engine/metrics_log.h"

namespace strata {

using MetricSeries = std::vector<std::pair<int64_t, double>>;

/** (step, value) of every record that has `key`, in log order. */
MetricSeries metricSeries(const std::vector<MetricsRecord>& records, const std::string& key);
/** The smallest / the last value of a series; NaN when empty. */
double minimumOf(const MetricSeries& series);
double lastOf(const MetricSeries& series);

/**
 * Seconds spent in optimizer steps (evaluations, checkpoints and pauses left out), from the
 * logged intervals: each "tokens_per_s" record covers the steps since the previous one, and
 * tokens per step is constant within a run, so an interval took Δsteps × (tokens per step) /
 * tokens_per_s. Tokens per step is the median over intervals of tokens_per_s × Δwall / Δsteps —
 * the median so that the one interval spanning a resume (whose wall-clock gap includes the
 * time the run was stopped) does not count. NaN with fewer than two logged intervals.
 */
double trainingSeconds(const std::vector<MetricsRecord>& records);

}  // namespace strata
