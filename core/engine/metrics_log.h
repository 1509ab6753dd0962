#pragma once
// metrics.jsonl: one JSON object per line, {"step": n, "wall_time": unix seconds, name: value,
// ...}. The training loop appends (flushing every line), readers replay it, and the GUI tails a
// file another process is still writing. No torch and no Qt here.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace strata::engine {

struct MetricsRecord {
  int64_t step = 0;
  double wallTime = 0;                                 ///< seconds since the Unix epoch
  std::vector<std::pair<std::string, double>> values;  ///< in the order logged
  /** The value of `name`, or NaN when this record does not have it. */
  double value(const std::string& name) const;
  bool has(const std::string& name) const;
};

/** Names the training loop, the recipes and the views agree on. "loss" is the whole objective a
 *  step minimises. A recipe whose objective adds terms its evaluation leaves out (repr_align's
 *  λ·alignment) also logs the part that its evaluation's "loss" (val_loss) measures as
 *  kTaskLossMetric: plots compare that with val_loss, never the objective. kTrainSecondsMetric
 *  is the time the run has spent training up to the record's step, pauses and the time between
 *  a stop and its resume left out: steps per second are measured against it. */
inline constexpr const char* kTaskLossMetric = "task_loss";
inline constexpr const char* kTrainSecondsMetric = "train_seconds";

/** One line of metrics.jsonl → a record. Non-numeric fields are skipped. Throws on bad JSON. */
MetricsRecord parseMetricsLine(const std::string& line);
/** A record → one line (no newline). Non-finite values are written as null. */
std::string formatMetricsLine(const MetricsRecord& record);

/** Reads every complete, well-formed line (a line cut by a crash is skipped). Missing file →
 *  empty. */
std::vector<MetricsRecord> readMetricsLog(const std::filesystem::path& file);

/** Keeps only the records with step ≤ `step` (resume drops what the checkpoint does not
 *  cover); rewritten atomically. A missing file stays missing. */
void truncateMetricsLog(const std::filesystem::path& file, int64_t step);

/** Appends records, one flushed line each, so a reader (or a crash) never sees half a line
 *  except the last. */
class MetricsLogWriter {
 public:
  explicit MetricsLogWriter(const std::filesystem::path& file);
  void append(const MetricsRecord& record);

 private:
  std::filesystem::path m_file;
  std::ofstream m_out;
};

/**
 * Follows a metrics.jsonl that may still be growing: each readNew() returns the complete lines
 * added since the last call (a trailing partial line waits for its newline). When the file
 * shrinks or is replaced (a resume truncated it), reading restarts from the top and
 * restarted() says so, so the caller can drop what it had.
 */
class MetricsTail {
 public:
  explicit MetricsTail(std::filesystem::path file);
  std::vector<MetricsRecord> readNew();
  bool restarted() const { return m_restarted; }

 private:
  std::filesystem::path m_file;
  uint64_t m_offset = 0;
  uint64_t m_inode = 0;
  std::string m_partial;
  bool m_restarted = false;
};

/** Writes records as CSV: step, wall_time, then one column per metric name (first-seen order);
 *  empty cells where a record lacks a metric. */
void writeMetricsCsv(const std::vector<MetricsRecord>& records, const std::filesystem::path& file);

}  // namespace strata::engine
