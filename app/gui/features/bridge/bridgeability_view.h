#pragma once
// BridgeabilityView: the tab of a bridgeability sweep (core's runBridgeSweep, or `strata-cli
// sweep-bridges`) — does the geometry score predict which layers bridge best? Left: the score
// S(l) against each layer's best validation loss, one labelled point per layer, l* by score
// highlighted; under it ρ(S, −val loss) and its permutation p-value. Right: a table of every
// layer (S, best val loss, val cosine, CE gap, run; the layer-0 baseline greyed, outside ρ).
// Double-clicking a row asks to show that layer's run. Export: the plot as PNG/PDF, the table
// as CSV (sweep.csv's columns).
//
// The result is an immutable snapshot read from the folder's sweep.json. GUI thread only.

#include <QString>
#include <QStringList>
#include <QWidget>
#include <memory>

#include "recipes/bridge/bridge_sweep.h"

class QCPGraph;
class QCustomPlot;
class QLabel;
class QTableWidget;
class QToolButton;

namespace strata {

class BridgeabilityView final : public QWidget {
  Q_OBJECT

 public:
  /** `folder`: the sweep folder the result was read from (shown, and named in exports). */
  BridgeabilityView(const QString& folder, std::shared_ptr<const recipes::BridgeSweepResult> result,
                    QWidget* parent = nullptr);

  /** Shows a new result of the same folder (the sweep continued). */
  void setResult(std::shared_ptr<const recipes::BridgeSweepResult> result);
  const recipes::BridgeSweepResult& result() const { return *m_result; }
  const QString& folder() const { return m_folder; }

  /** "ρ(S, −val loss) = 1.00 · p = 0.35 · n = 3 layers · l* by score = 1 · …". */
  static QString captionText(const recipes::BridgeSweepResult& result);
  /** The table as CSV: layer,score,val_loss,val_cosine,val_ce_gap,run (baselines last, with
   *  an empty score). */
  QString csv() const;
  /** Saves the plot (format from the suffix: .png or .pdf). Throws strata::Error. */
  void savePlot(const QString& file);
  /** Saves csv(). Throws strata::IoError. */
  void saveCsv(const QString& file) const;

  QCustomPlot* plot() const { return m_plot; }
  /** Every layer of the range; l* is drawn again on top by bestGraph. */
  QCPGraph* pointsGraph() const { return m_points; }
  QCPGraph* bestGraph() const { return m_best; }
  /** The point labels, in row order ("3", "l* = 1"). */
  QStringList pointLabels() const { return m_labelTexts; }
  QLabel* caption() const { return m_caption; }
  QTableWidget* table() const { return m_table; }
  QToolButton* exportButton() const { return m_export; }

 signals:
  /** The user double-clicked the row of `run`. */
  void runActivated(const QString& run);

 private:
  void fillPlot();
  void fillTable();

  QString m_folder;
  std::shared_ptr<const recipes::BridgeSweepResult> m_result;
  QLabel* m_header;
  QCustomPlot* m_plot;
  QCPGraph* m_points;
  QCPGraph* m_best;
  QStringList m_labelTexts;
  QLabel* m_caption;
  QTableWidget* m_table;
  QToolButton* m_export;
};

}  // namespace strata
