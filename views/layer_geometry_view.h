#pragma once
// LayerGeometryView: the tab of an activation store's /geometry — where the DiHAL insertion
// layer l* is chosen. Left: GeometryPlot (m_curv, m_mono, k_eff with bootstrap bands, each
// plugin metric the scan computed, and S, against the layer). Right: ScoreControls (weights w_c,
// w_m, w_k, one per plugin metric, and candidates first..last) over a table of every layer
// (proxies with intervals, S, rank, plugin metrics; the l* row highlighted).
//
// Layout: the plot scrolls vertically when its panels would fall below a readable height; the
// table always has room for its main columns (layer, proxies, S, rank) and the plot takes the
// rest of the width (issue 22: readable at 1280×800 and 1920×1080 with any number of metrics).
// On the right the controls sit over the table in a vertical splitter whose first placement
// gives the table ten one-line rows before the controls take their whole height, so a
// report of 30 to 80 layers lists many of them at the window's default size; once the user drags
// the handle, it stays where they put it.
//
// Moving a control re-ranks at once through geometry::scoreSeries on the report's stored
// values: nothing is recomputed and no file is read. Hovering the plot shows the layer's values
// and intervals; clicking a layer (plot or table) emits layerDetailRequested. Export saves the
// plot as PNG/PDF and the table as CSV.
//
// The report is an immutable snapshot shared with whoever produced it. GUI thread only.

#include <QString>
#include <QWidget>
#include <memory>

#include "geometry/geometry_report.h"
#include "geometry/metric_series.h"
#include "geometry/score.h"
#include "geometry_table_view.h"

class QCheckBox;
class QLabel;
class QScrollArea;
class QSplitter;
class QSortFilterProxyModel;
class QToolButton;

namespace strata {

class GeometryPlot;
class GeometryTableModel;
class ScoreControls;

class LayerGeometryView final : public QWidget {
  Q_OBJECT

 public:
  /** `storeFile`: the activation store the report belongs to (shown, and named in exports). */
  LayerGeometryView(const QString& storeFile,
                    std::shared_ptr<const geometry::GeometryReport> report,
                    QWidget* parent = nullptr);

  /**
   * Shows a new report of the same store (after a new scan). The weights are kept; the
   * candidates too when the new report still has those layers, else they return to 1..L−1.
   */
  void setReport(std::shared_ptr<const geometry::GeometryReport> report);

  const geometry::GeometryReport& report() const { return *m_report; }
  std::shared_ptr<const geometry::GeometryReport> reportSnapshot() const { return m_report; }
  const QString& storeFile() const { return m_storeFile; }

  /** The scores under the current weights and candidates, in report order. */
  const geometry::LayerScores& scores() const { return m_scores; }
  /** l*; -1 when no candidate layer has a finite score. */
  int64_t bestLayer() const;

  /** Hover text of `layer`: its proxies with intervals, S and rank; empty if not in the report. */
  QString toolTipText(int64_t layer) const;

  /** Saves the plot (format from the suffix: .png or .pdf). Throws strata::Error. */
  void savePlot(const QString& file);
  /** Saves the table as CSV (GeometryTableModel::csv). Throws strata::IoError. */
  void saveTable(const QString& file) const;

  ScoreControls* controls() const { return m_controls; }
  GeometryPlot* plot() const { return m_plot; }
  GeometryTableView* table() const { return m_table; }
  /** The controls (top) and the table (bottom). */
  QSplitter* sideSplitter() const { return m_side; }
  GeometryTableModel* tableModel() const { return m_model; }
  QCheckBox* logScaleBox() const { return m_logScale; }
  QToolButton* exportButton() const { return m_export; }
  /** The header: store, options, the recorded normalisation and interval method, warnings. */
  QLabel* headerLabel() const { return m_header; }

 protected:
  void resizeEvent(QResizeEvent* event) override;

 signals:
  /** The user clicked `layer` in the plot or the table: show its detail. */
  void layerDetailRequested(qint64 layer);
  /** The weights or candidates changed and the scores were recomputed. */
  void scoresChanged();

 private:
  void rescore();
  void updateHeader();
  /** Places the controls/table handle (until the user moves it): see the file comment; and
   *  scrolls a new report's l* row into view. */
  void fitSideSplit();
  void showHoverText(qint64 layer, const QPoint& globalPosition);
  void tableClicked(const QModelIndex& index);

  QString m_storeFile;
  std::shared_ptr<const geometry::GeometryReport> m_report;
  std::vector<int64_t> m_layers;                 // m_report's layer indices, cached for scoring
  std::vector<geometry::MetricSeries> m_series;  // m_report's metric series, cached for scoring
  geometry::LayerScores m_scores;
  QLabel* m_header;
  QCheckBox* m_logScale;
  QToolButton* m_export;
  GeometryPlot* m_plot;
  ScoreControls* m_controls;
  QScrollArea* m_controlsArea = nullptr;
  QSplitter* m_side = nullptr;     // the controls over the table
  bool m_sideSplitChosen = false;  // the user moved the handle: fitSideSplit leaves it
  bool m_revealBest = false;       // a new report: fitSideSplit scrolls its l* row into view
  GeometryTableModel* m_model;
  QSortFilterProxyModel* m_sorted;
  GeometryTableView* m_table;
  qint64 m_hovered = -1;
};

}  // namespace strata
