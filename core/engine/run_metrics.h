#pragma once
// What a run logged, as the comparisons, studies and views read it: metrics.jsonl replayed into
// series over steps, the validation loss every recipe logs as "val_loss", and the run's
// training wall clock. The one reader of a finished run's metrics. No torch here.

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "engine/metrics_log.h"

namespace strata::engine {

/** (step, value) pairs in log order: one metric of one run over its steps. */
using LoggedSeries = std::vector<std::pair<int64_t, double>>;

/** (step, value) of every record that has `key` with a finite value, in log order. */
LoggedSeries loggedSeries(const std::vector<MetricsRecord>& records, const std::string& key);
/** The smallest / the last / the mean value of a series; NaN when empty. */
double minimumOf(const LoggedSeries& series);
double lastOf(const LoggedSeries& series);
double meanOf(const LoggedSeries& series);

/**
 * Seconds spent in optimizer steps (evaluations, checkpoints and pauses left out), from the
 * logged intervals: each "tokens_per_s" record covers the steps since the previous one, and
 * tokens per step is constant within a run, so an interval took Δsteps × (tokens per step) /
 * tokens_per_s. Tokens per step is the median over intervals of tokens_per_s × Δwall / Δsteps —
 * the median so that the one interval spanning a resume (whose wall-clock gap includes the
 * time the run was stopped) does not count. NaN with fewer than two logged intervals.
 */
double trainingSeconds(const std::vector<MetricsRecord>& records);

/** A run's metrics.jsonl, read once (engine/run_folder.h: RunFolder::metrics()). */
class RunMetrics {
 public:
  RunMetrics(std::filesystem::path file, std::vector<MetricsRecord> records);
  const std::filesystem::path& file() const { return m_file; }
  const std::vector<MetricsRecord>& records() const { return m_records; }

  LoggedSeries series(const std::string& key) const { return loggedSeries(m_records, key); }
  /** The last logged value of `key`; NaN when the run never logged it. */
  double last(const std::string& key) const { return lastOf(series(key)); }
  /** The mean of every logged value of `key` (e.g. throughput); NaN when never logged. */
  double mean(const std::string& key) const { return meanOf(series(key)); }
  /** "val_loss" over steps; FormatError naming metrics.jsonl when the run never evaluated. */
  LoggedSeries validationLoss() const;
  double trainingSeconds() const { return strata::engine::trainingSeconds(m_records); }

 private:
  std::filesystem::path m_file;
  std::vector<MetricsRecord> m_records;
};

}  // namespace strata::engine
