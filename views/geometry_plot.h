#pragma once
// GeometryPlot: the three proxies and the score S against the layer index, as four stacked
// panels sharing the layer axis (each proxy on its own y axis, so their scales never fight).
// Each proxy is a line with its bootstrap interval as a translucent band; S is drawn over the
// candidate layers only, the layers outside the candidates are shaded in every panel, and l*
// is a dashed vertical line through all panels, a ring on every metric's value at l*, and a star
// and a label on S. Each plugin metric of the report gets one more panel (its values as a line;
// no band: plugins give point values), stacked between k_eff and S.
//
// Readable for 5 to 80+ layers at the workbench's default size:
// * Each panel's title ("curvature m_curv", "twonn_id", …) is written across the top of its
//   panel, left-aligned in a strip of its own above the data, so it has the panel's width, not
//   its height, and is never cut short at the default size (only a panel narrower than its name
//   shows the symbol, elided if need be); the full name and definition are the title's tooltip
//   (titleToolTip), as are the y tick labels'.
// * The layer axis labels every 1st, 2nd, 5th, 10th, 20th, … layer: the smallest of those steps
//   whose labels keep a gap of at least one label width between them (the other layers get
//   minor ticks), so labels never overlap however many layers and however narrow the plot.
// * Every panel gets the same height for its data (S's share also holds the layer axis), and
//   as many value labels (two to five) as that height holds without crowding.
// * Markers shrink and then disappear as the layers crowd (each marker keeps its own room); the
//   l* ring stays.
// Each panel keeps a minimum height (minimumHeight grows with the panels), so a view with many
// metrics scrolls rather than squeezing them unreadable.
//
// Hovering emits layerHovered, a click (press and release on the same spot) layerClicked.
// Replots are queued (rpQueuedReplot), so many score updates in one event-loop turn draw once.
// GUI thread only.
//
// Its files, by job: geometry_plot.cpp makes the panels, geometry_plot_series.cpp draws the
// report and the scores into them, geometry_plot_layout.cpp fits heights, ticks, markers and
// titles to the size, geometry_plot_interaction.cpp answers the mouse; geometry_plot_style.h
// holds what they share.

#include <qcustomplot.h>

#include <QPoint>
#include <memory>
#include <vector>

#include "geometry/geometry_report.h"
#include "geometry/metric_series.h"
#include "geometry/score.h"

namespace strata {

class LayerTicker;  // layer_geometry_view_ticks.h

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
  /** The ring on a proxy panel's value at l* (empty when there is no l*); S has its star. */
  QCPGraph* bestMarker(Panel which) const { return m_bestMarkers[which]; }
  QCPItemText* bestLabel() const { return m_bestLabel; }
  /** The panels of the report's plugin metrics, in the report's order. */
  int pluginPanelCount() const { return static_cast<int>(m_pluginPanels.size()); }
  QCPAxisRect* pluginPanel(int index) const { return m_pluginPanels[std::size_t(index)].rect; }
  QCPGraph* pluginGraph(int index) const { return m_pluginPanels[std::size_t(index)].values; }

  /** The report's layer under `pixel` (any panel, nearest layer within half a step); -1 if none. */
  int64_t layerAt(const QPoint& pixel) const;
  /** The horizontal pixel position of `layer` on the shared layer axis. */
  double pixelOf(int64_t layer) const;
  /** The full name and definition of the panel whose title or tick labels are under `pixel`;
   *  empty elsewhere. */
  QString titleToolTip(const QPoint& pixel) const;

  /** The panels' titles: the four fixed panels' (Panel order), then the plugin panels'. */
  int titleCount() const { return static_cast<int>(m_titles.size()); }
  /** The drawn title of panel `index` (in titleCount order) and the full name it stands for. */
  QCPItemText* titleItem(int index) const;
  QString fullTitle(int index) const;
  /** The panel `index`'s title belongs to. */
  QCPAxisRect* titlePanel(int index) const;

  /** The shared layer axis (under S, the one with tick labels). */
  QCPAxis* layerAxis() const;
  /** Layers between two labelled ticks of the layer axis (1, 2, 5, 10, 20, …). */
  int layerTickStep() const;

  /** Below this a panel's values are unreadable: the plot asks for panels × this (+ the layer
   *  axis) as its minimum height. */
  static constexpr int kMinimumPanelHeight = 60;
  static constexpr int kLayerAxisHeight = 40;
  static constexpr int kMinimumWidth = 360;
  /** Free pixels between two layer labels, in label widths (at least one label width). */
  static constexpr double kLayerLabelGap = 1.0;

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
  /** Sets each panel's title to the longest form its panel has room for (afterLayout). */
  void fitTitles();
  /** Puts the l* label where it covers none of S's markers (after each layout). */
  void placeBestLabel();
  /** The panels' shares of the height (the same data height for all), value ticks for that
   *  height, the layer step and the marker size (beforeReplot). */
  void fitPanels();
  /** The proxies' panels, the plugin metrics', then S's: the plot's rows. */
  std::vector<QCPAxisRect*> panelsTopToBottom() const;
  /** The layer step and marker size for the layer axis's current width; true if either
   *  changed. */
  bool fitLayerAxis(int axisWidth);
  /** The text strip above `rect` that holds its title, coloured `colour`. */
  QCPItemText* addTitle(QCPAxisRect* rect, const QString& full, const QString& brief,
                        const QString& toolTip, const QColor& colour);
  /** Fixed gaps above (with room for the title) and below `rect`; left and right follow the
   *  axes. */
  void stackPanel(QCPAxisRect* rect, bool carriesLayerAxis) const;
  /** A ring marking l*'s value on the panel of `x`, `y`. */
  QCPGraph* addBestMarker(QCPAxis* x, QCPAxis* y);

  /** A panel's title in its long and short forms, and what it means. */
  struct PanelTitle {
    QCPAxisRect* rect = nullptr;
    QCPAxis* axis = nullptr;  // the panel's value axis (its tick labels share the tooltip)
    QCPItemText* item = nullptr;
    QString full;
    QString brief;
    QString toolTip;
  };

  struct PluginPanel {
    QCPAxisRect* rect = nullptr;
    QCPGraph* values = nullptr;
    QCPItemStraightLine* bestLine = nullptr;
    QCPGraph* bestMarker = nullptr;
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
  QCPGraph* m_bestMarkers[PanelCount] = {};  // null on S, which has m_bestPoint
  QCPGraph* m_bestPoint = nullptr;
  bool m_bestLabelLeft = false;  // the label's preferred side of the l* line
  QCPItemText* m_bestLabel = nullptr;
  bool m_logScale = false;
  QPoint m_pressPosition{-1000, -1000};
  QCPMarginGroup* m_margins = nullptr;
  std::vector<PluginPanel> m_pluginPanels;
  std::vector<PanelTitle> m_titles;           // the four panels', then the plugin panels'
  QSharedPointer<LayerTicker> m_layerTicker;  // every panel's layer axis
  double m_markerSize = 6;
  int m_layerAxisMargin = kLayerAxisHeight;  // S's bottom margin as fitPanels assumed it
  int m_laidOutWidth = 0;                    // the plot's width at the last layout
  double m_dataHeight = 0;                   // each panel's data height (fitPanels)
};

}  // namespace strata
