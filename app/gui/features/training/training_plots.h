#pragma once
// TrainingPlots: a run's metrics.jsonl as three QCustomPlots — the loss (train as logged, its
// exponential moving average, and the evaluations as points on a line), the learning rate and
// the throughput (tokens/s) — over the optimizer step. Above them: a log-scale toggle for the
// loss axis, the smoothing slider (TensorBoard's debiased EMA, weight 0…0.99) and Export (each
// plot as PNG/PDF, the metrics as CSV).
//
// Train and eval curves show one quantity: when a run logs task_loss (metrics_log.h: its
// objective adds terms evaluation leaves out, as repr_align's λ·alignment), the train curves
// are task_loss and the whole objective ("loss") is drawn only on request (Objective), dashed
// and named as such.
//
// Records arrive whole (setRecords: a run opened or replayed) or in pieces (appendRecords: a
// live tail); refreshes are coalesced with rpQueuedReplot. Names: "loss", "task_loss",
// "val_loss", "lr", "tokens_per_s". Each is held as a DecimatedSeries, so a run followed for
// days costs bounded memory: exact points up to kMaxBuckets, then min/max envelopes (smoothing
// runs on the bucket means, its weight raised to the stride). The CSV export reads the run's
// metrics.jsonl, whole. GUI thread only.

#include <QVector>
#include <QWidget>
#include <vector>

#include "engine/decimated_series.h"
#include "engine/metrics_log.h"

class QCheckBox;
class QCPGraph;
class QCustomPlot;
class QLabel;
class QSlider;
class QToolButton;

namespace strata {

/** TensorBoard's smoothing: EMA with weight `weight` in [0, 1), debiased so the first points
 *  are not pulled to zero. NaNs stay NaN and do not move the average. */
QVector<double> smoothedSeries(const QVector<double>& values, double weight);

class TrainingPlots final : public QWidget {
  Q_OBJECT

 public:
  enum Plot { LossPlot, LearningRatePlot, ThroughputPlot };

  /** Buckets kept per series: up to twice as many points drawn per graph. */
  static constexpr int64_t kMaxBuckets = 8192;

  explicit TrainingPlots(QWidget* parent = nullptr);

  void setRecords(const std::vector<engine::MetricsRecord>& records);
  void appendRecords(const std::vector<engine::MetricsRecord>& records);
  void clear() { setRecords({}); }
  /** Records plotted since the last setRecords, and the step of the newest (-1: none). */
  int64_t recordCount() const { return m_recordCount; }
  int64_t lastStep() const { return m_lastStep; }
  /** The series of the train curves: task_loss when the run logs it, else loss. */
  const engine::DecimatedSeries& trainLoss() const;
  /** True when the train curves show task_loss (the run's objective has more terms). */
  bool showsTaskLoss() const { return m_taskLoss.pointCount() > 0; }
  /** The metrics.jsonl the records come from: what "Save Metrics as CSV" converts. */
  void setMetricsFile(const QString& file) { m_metricsFile = file; }
  /** A name for exported files ("<run>-loss.png"). */
  void setExportName(const QString& name) { m_exportName = name; }

  /** Smoothing weight in [0, 0.99]; moves the slider. */
  void setSmoothing(double weight);
  double smoothing() const { return m_smoothing; }
  void setLogScale(bool logarithmic);

  /** Saves one plot (format from the suffix: .png or .pdf). Throws strata::Error. */
  void savePlot(Plot plot, const QString& file);
  /** Writes every record of the metrics file as CSV (writeMetricsCsv). Throws strata::Error
   *  when no file is set, strata::IoError when it cannot be written. */
  void saveCsv(const QString& file) const;

  QCustomPlot* plot(Plot which) const;
  QCPGraph* trainLossGraph() const { return m_train; }
  QCPGraph* smoothedLossGraph() const { return m_smoothed; }
  QCPGraph* evalLossGraph() const { return m_eval; }
  /** The whole objective ("loss") of a run that logs task_loss; empty unless Objective is on. */
  QCPGraph* objectiveGraph() const { return m_objective; }
  QCheckBox* objectiveBox() const { return m_showObjective; }
  QCPGraph* learningRateGraph() const { return m_lr; }
  QCPGraph* throughputGraph() const { return m_throughput; }
  QCheckBox* logScaleBox() const { return m_logScale; }
  QSlider* smoothingSlider() const { return m_slider; }
  QToolButton* exportButton() const { return m_export; }

 private:
  void addToSeries(const std::vector<engine::MetricsRecord>& records);
  void refresh();

  void redrawSmoothed();
  /** Names the loss graphs and the axis after what the train curves show. */
  void nameLossGraphs();

  int64_t m_recordCount = 0;
  int64_t m_lastStep = -1;
  QString m_metricsFile;
  engine::DecimatedSeries m_trainLoss{kMaxBuckets}, m_taskLoss{kMaxBuckets},
      m_evalLoss{kMaxBuckets}, m_lrSeries{kMaxBuckets}, m_throughputSeries{kMaxBuckets};
  double m_smoothing = 0.6;
  QString m_exportName = QStringLiteral("training");
  QCheckBox* m_logScale;
  QCheckBox* m_showObjective;
  QSlider* m_slider;
  QLabel* m_sliderValue;
  QToolButton* m_export;
  QCustomPlot* m_lossPlot;
  QCustomPlot* m_lrPlot;
  QCustomPlot* m_throughputPlot;
  QCPGraph* m_train;
  QCPGraph* m_smoothed;
  QCPGraph* m_eval;
  QCPGraph* m_objective;
  QCPGraph* m_lr;
  QCPGraph* m_throughput;
};

}  // namespace strata
