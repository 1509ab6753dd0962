#pragma once
// BridgeMetricsPlot: what a DiHAL bridge run's evaluations say about the bridge, over the
// optimizer step — the cosine of the sampled ĥ_{l*} to the true h_{l*} and the top-1 agreement
// of the upper stack fed ĥ versus fed h (both in [0, 1], left axis), and the CE gap in nats
// (right axis). The loss, lr and throughput stay in the Training tab's TrainingPlots; this plot
// shows only the bridge's own "val_cosine", "val_top1_agreement" and "val_ce_gap".
//
// Records arrive whole (setRecords) or as a live tail (appendRecords); records without these
// metrics (the training steps between evaluations) are skipped. GUI thread only.

#include <QWidget>
#include <vector>

#include "engine/metrics_log.h"

class QCPGraph;
class QCustomPlot;
class QToolButton;

namespace strata {

class BridgeMetricsPlot final : public QWidget {
  Q_OBJECT

 public:
  explicit BridgeMetricsPlot(QWidget* parent = nullptr);

  void setRecords(const std::vector<engine::MetricsRecord>& records);
  void appendRecords(const std::vector<engine::MetricsRecord>& records);
  void clear() { setRecords({}); }

  QCustomPlot* plot() const { return m_plot; }
  QCPGraph* cosineGraph() const { return m_cosine; }
  QCPGraph* agreementGraph() const { return m_agreement; }
  QCPGraph* ceGapGraph() const { return m_ceGap; }
  /** Save as PNG/PDF; not laid out here, so the owner can put it in its own toolbar row. */
  QToolButton* exportButton() const { return m_export; }

 private:
  void refresh();

  QCustomPlot* m_plot;
  QToolButton* m_export;
  QCPGraph* m_cosine;
  QCPGraph* m_agreement;
  QCPGraph* m_ceGap;
};

}  // namespace strata
