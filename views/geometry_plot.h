#pragma once
// GeometryPlot: the three proxies and the score S against the layer index, as four stacked
// panels sharing the layer axis (each proxy on its own y axis, so their scales never fight).
// Each proxy is a line with its bootstrap interval as a translucent band; S is drawn over the
// candidate layers only, the layers outside the candidates are shaded in every panel, and l*
// is a dashed vertical line through all panels plus a star and a label on S. Each plugin metric
// of the report gets one more panel (its values as a line; no band: plugins give point values),
// stacked between k_eff and S.
//
// Axis titles never run past their panel: all show their full names ("curvature m_curv") when
// the panels are tall enough, else their symbols ("m_curv"), elided where even that is too
// long; the full name and definition are the title's tooltip (titleToolTip). Each panel keeps a
// minimum height (minimumHeight grows with the panels), so a view with many metrics scrolls
// rather than squeezing them unreadable.
//
// Hovering emits layerHovered, a click (press and release on the same spot) layerClicked.
// Replots are queued (rpQueuedReplot), so many score updates in one event-loop turn draw once.
// GUI thread only.

#include <qcustomplot.h>

#include <QPoint>
#include <memory>
#include <vector>

#include "geometry/geometry_report.h"
#include "geometry/metric_series.h"
#include "geometry/score.h"

namespace strata {

class GeometryPlot final : public QCustomPlot {
  Q_OBJECT

 public:
  enum Panel { CurvaturePanel, MonotonicityPanel, EffectiveRankPanel, ScorePanel, PanelCount };

  explicit GeometryPlot(QWidget* parent = nullptr);

  /** Draws the proxies and bands of `report`; the score panel waits for setScores(). */
  void setReport(std::shared_ptr<const geometry::GeometryReport> report);
  /** Redraws S, the shading outside `candidates` and the l* marker. */
  void setScores(const geometry::LayerScores& scores, const geometry::LayerRange& candidates);
  /** Logarithmic y axes for the three proxy panels (S stays linear). */
  void setLogScale(bool logarithmic);
  bool logScale() const { return m_logScale; }

  QCPAxisRect* panel(Panel which) const { return m_panels[which]; }
  /** The value line of a proxy panel, or S on the score panel. */
  QCPGraph* valueGraph(Panel which) const { return m_values[which]; }
  /** Lower / upper edge of a proxy panel's bootstrap band (the upper one carries the fill). */
  QCPGraph* bandGraph(Panel which, bool upper) const {
    return upper ? m_bandHigh[which] : m_bandLow[which];
  }
  /** The vertical l* line of a panel (hidden when there is no l*). */
  QCPItemStraightLine* bestLine(Panel which) const { return m_bestLines[which]; }
  QCPItemText* bestLabel() const { return m_bestLabel; }
  /** The panels of the report's plugin metrics, in the report's order. */
  int pluginPanelCount() const { return static_cast<int>(m_pluginPanels.size()); }
  QCPAxisRect* pluginPanel(int index) const { return m_pluginPanels[std::size_t(index)].rect; }
  QCPGraph* pluginGraph(int index) const { return m_pluginPanels[std::size_t(index)].values; }

  /** The report's layer under `pixel` (any panel, nearest layer within half a step); -1 if none. */
  int64_t layerAt(const QPoint& pixel) const;
  /** The horizontal pixel position of `layer` on the shared layer axis. */
  double pixelOf(int64_t layer) const;
  /** The full name and definition of the panel whose axis title or tick labels are under
   *  `pixel`; empty elsewhere. */
  QString titleToolTip(const QPoint& pixel) const;

  /** Below this a panel's values are unreadable: the plot asks for panels × this (+ the layer
   *  axis) as its minimum height. */
  static constexpr int kMinimumPanelHeight = 60;
  static constexpr int kLayerAxisHeight = 40;
  static constexpr int kMinimumWidth = 360;

 signals:
  void layerHovered(qint64 layer, const QPoint& globalPosition);
  void layerClicked(qint64 layer);

 protected:
  void mousePressEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;

 private:
  void rescaleValueAxes();
  /** Replaces the plugin panels by one per metric of the report, S staying last. */
  void rebuildPluginPanels();
  void updateMinimumHeight();
  /** Sets each value axis's title to the longest form its panel has room for (afterLayout). */
  void fitAxisTitles();
  /** Fewer value ticks on short panels (beforeReplot). */
  void fitTickCounts();

  /** A value axis's title in its long and short forms, and what it means. */
  struct AxisTitle {
    QCPAxis* axis = nullptr;
    QString full;
    QString brief;
    QString toolTip;
  };

  struct PluginPanel {
    QCPAxisRect* rect = nullptr;
    QCPGraph* values = nullptr;
    QCPItemStraightLine* bestLine = nullptr;
  };

  std::shared_ptr<const geometry::GeometryReport> m_report;
  std::vector<geometry::MetricSeries> m_series;  // of m_report: a panel each, then S
  QCPAxisRect* m_panels[PanelCount] = {};
  QCPGraph* m_values[PanelCount] = {};
  QCPGraph* m_bandLow[PanelCount] = {};
  QCPGraph* m_bandHigh[PanelCount] = {};
  QCPItemStraightLine* m_bestLines[PanelCount] = {};
  QCPItemRect* m_shadeBefore[PanelCount] = {};
  QCPItemRect* m_shadeAfter[PanelCount] = {};
  QCPGraph* m_bestPoint = nullptr;
  QCPItemText* m_bestLabel = nullptr;
  bool m_logScale = false;
  QPoint m_pressPosition{-1000, -1000};
  QCPMarginGroup* m_margins = nullptr;
  std::vector<PluginPanel> m_pluginPanels;
  std::vector<AxisTitle> m_titles;  // the four panels', then the plugin panels'
};

}  // namespace strata
