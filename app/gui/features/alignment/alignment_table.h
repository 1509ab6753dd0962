#pragma once
// AlignmentTable: what the Alignment view shows of a repr_align run's metrics.jsonl, gathered
// record by record as the log is replayed or tailed. The recipe logs, for every hidden state
// l = 0..L (Hugging Face numbering: 0 = the embedding output, L = after the final norm):
//   training records    "align_cos_<l>" — absent when λ = 0 (the loop then runs no teacher)
//   evaluation records  "val_align_cos_<l>" (always), "val_loss", "val_masked_acc"
// where a cosine is the mean cosine(student, teacher) of that layer. A step's metrics may come
// as several lines (training, then evaluation); they fill one row. Bookkeeping only: no maths,
// no plotting. Not thread-safe; each view owns its tables on the GUI thread.

#include <QString>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace strata {

namespace engine {
struct MetricsRecord;
}  // namespace engine

/** Which cosines: the training records' or the evaluations'. */
enum class CosineSource { Training, Validation };

/** The metric name prefix of `source`: "align_cos_" or "val_align_cos_". */
std::string cosinePrefix(CosineSource source);

/** One scalar over steps, ascending in step (a step logged twice keeps its last value). */
struct StepSeries {
  std::vector<int64_t> steps;
  std::vector<double> values;
};

class AlignmentTable {
 public:
  /** Adds `records` in log order. Steps normally grow; an older step is merged in place. */
  void append(const std::vector<engine::MetricsRecord>& records);
  void clear();

  /** Hidden states seen for `source` (the largest l + 1); 0 when no record has one. */
  int layerCount(CosineSource source) const { return rows(source).layers; }
  bool hasCosines(CosineSource source) const { return layerCount(source) > 0; }
  /** The steps with at least one cosine of `source`, ascending: the table's rows. */
  const std::vector<int64_t>& steps(CosineSource source) const { return rows(source).steps; }
  /** The cosine of `layer` in row `row` of `source`; NaN when that step did not log it. */
  double cosine(CosineSource source, size_t row, int layer) const;

  const StepSeries& validationLoss() const { return m_valLoss; }
  const StepSeries& validationMaskedAccuracy() const { return m_valMaskedAcc; }

  /**
   * The step × layer table of `source` as CSV: a header "step,<prefix>0,…,<prefix>L", then one
   * line per row with each cosine in its shortest round-trip form (empty where not logged).
   */
  QString csv(CosineSource source) const;

 private:
  struct CosineRows {
    int layers = 0;
    std::vector<int64_t> steps;
    std::vector<std::vector<double>> values;  ///< [row][layer]; a short row is NaN beyond
  };
  /** Sets `cells` ((layer, cosine) pairs) in the row of `step`, adding the row when new. */
  static void addCells(CosineRows& table, int64_t step,
                       const std::vector<std::pair<int, double>>& cells);
  const CosineRows& rows(CosineSource source) const {
    return source == CosineSource::Training ? m_training : m_validation;
  }

  CosineRows m_training;
  CosineRows m_validation;
  StepSeries m_valLoss;
  StepSeries m_valMaskedAcc;
};

}  // namespace strata
