#include <algorithm>
#include <limits>

#include "geometry_plot.h"
#include "geometry_plot_style.h"
#include "layer_geometry_view_ticks.h"

// GeometryPlot fitted to its size on each layout: the panels' shares of the height, the value
// and layer ticks, the marker size, the titles' forms and the l* label's corner.

namespace strata {
using geometry_plot_style::kBestLabelOffset;
using geometry_plot_style::kFullMarker;
using geometry_plot_style::kGapBelowPanel;
using geometry_plot_style::kSmallMarker;
using geometry_plot_style::kTitlePadding;
namespace {

// The room (pixels per layer) each marker size needs so neighbours stay apart.
constexpr double kFullMarkerRoom = 14;
constexpr double kSmallMarkerRoom = 7;
constexpr double kMinorTickRoom = 4;  // pixels at least between two minor layer ticks

/** Pixels the title item needs for `text` (its padding included). */
int titleWidth(const QFontMetrics& metrics, const QString& text) {
  return metrics.horizontalAdvance(text) + kTitlePadding.left() + kTitlePadding.right();
}

}  // namespace

void GeometryPlot::fitPanels() {
  // Before the layout, so that the margins are computed for what will be drawn. Every panel
  // gets the same height for its data: S, which also carries the layer axis, a larger share.
  const std::vector<QCPAxisRect*> rects = panelsTopToBottom();
  QCPAxisRect* score = m_panels[ScorePanel];
  // The layer axis's height as of the last layout (an estimate before the first).
  m_layerAxisMargin =
      score->margins().bottom() > kGapBelowPanel ? score->margins().bottom() : kLayerAxisHeight;
  std::vector<int> fixed;
  int allFixed = 0;
  for (QCPAxisRect* rect : rects) {
    fixed.push_back(rect->margins().top() +
                    (rect == score ? m_layerAxisMargin : rect->margins().bottom()));
    allFixed += fixed.back();
  }
  const QMargins outer = plotLayout()->margins();
  const double spacing = plotLayout()->rowSpacing() * double(rects.size() - 1);
  const double dataHeight =
      std::max(1.0, (height() - outer.top() - outer.bottom() - spacing - allFixed) /
                        double(std::max<std::size_t>(rects.size(), 1)));
  QList<double> stretch;
  for (const int margins : fixed) stretch << dataHeight + margins;
  plotLayout()->setRowStretchFactors(stretch);
  // The l* label stays legible where it crosses S's line.
  QColor paper = palette().color(QPalette::Active, QPalette::Base);
  paper.setAlpha(210);
  m_bestLabel->setBrush(paper);
  m_dataHeight = dataHeight;
  rescaleValueAxes();  // the room for the l* marks depends on the height
  // As many value labels as that height holds (ValueTicker).
  for (const PanelTitle& title : m_titles)
    if (const auto ticker = title.axis->ticker().dynamicCast<RoomTicker>())
      ticker->setRoom(dataHeight, QFontMetrics(title.axis->tickLabelFont()).height());
  // The layer axis's width: as of the last layout, moved by as much as the plot's width since
  // (the margins follow the value labels, which barely change); fitTitles corrects it after
  // this layout if it did change. Before the first layout, a guess.
  fitLayerAxis(m_laidOutWidth > 0 ? score->width() + width() - m_laidOutWidth
                                  : width() - kLayerAxisHeight);
}

bool GeometryPlot::fitLayerAxis(int axisWidth) {
  QCPAxis* axis = layerAxis();
  const double layers = std::max(axis->range().size(), 1.0);  // one layer per unit
  const double pixelsPerLayer = std::max(axisWidth, 1) / layers;
  // The widest label is the last layer's; a free label width between neighbours.
  const int64_t last = m_report && !m_report->layers.empty() ? m_report->layers.back().layer : 0;
  const double label = QFontMetrics(axis->tickLabelFont())
                           .horizontalAdvance(QString::number(std::max<int64_t>(last, 10)));
  const bool stepChanged =
      m_layerTicker->fit(pixelsPerLayer, label, kLayerLabelGap, kMinorTickRoom);

  const double marker = pixelsPerLayer >= kFullMarkerRoom    ? kFullMarker
                        : pixelsPerLayer >= kSmallMarkerRoom ? kSmallMarker
                                                             : 0;
  const bool changed = stepChanged || marker != m_markerSize;
  if (marker != m_markerSize) {
    m_markerSize = marker;
    const auto restyle = [marker](QCPGraph* graph, QCPScatterStyle::ScatterShape shape) {
      QPen pen = graph->pen();
      pen.setWidthF(marker >= kFullMarker ? 2 : 1.5);
      graph->setPen(pen);
      graph->setScatterStyle(marker > 0 ? QCPScatterStyle(shape, pen.color(), Qt::white, marker)
                                        : QCPScatterStyle(QCPScatterStyle::ssNone));
    };
    for (int p = 0; p < PanelCount; ++p) restyle(m_values[p], QCPScatterStyle::ssCircle);
    for (const PluginPanel& panel : m_pluginPanels)
      restyle(panel.values, QCPScatterStyle::ssDiamond);
  }
  return changed;
}

void GeometryPlot::fitTitles() {
  // A title wider than its panel (a very narrow plot, a long plugin name) shows the symbol, and
  // an elided symbol when even that is too long; the tooltip always names it in full.
  for (const PanelTitle& title : m_titles) {
    const QFontMetrics metrics(title.item->font());
    const int room = title.rect->width();
    QString text = title.full;
    if (titleWidth(metrics, text) > room) text = title.brief;
    if (titleWidth(metrics, text) > room)
      text = metrics.elidedText(title.brief, Qt::ElideRight,
                                std::max(room - titleWidth(metrics, QString()), 0));
    if (text.isEmpty()) text = QStringLiteral("…");
    title.item->setText(text);
  }
  placeBestLabel();
  // The layer step and the panels' shares chosen before this layout used the last layout's
  // width and layer axis height: if either moved enough to matter, draw once more.
  m_laidOutWidth = width();
  const int layerAxis = m_panels[ScorePanel]->margins().bottom();
  const bool layerAxisMoved =
      (layerAxis > kGapBelowPanel ? layerAxis : kLayerAxisHeight) != m_layerAxisMargin;
  if (fitLayerAxis(m_panels[ScorePanel]->width()) || layerAxisMoved) replot(rpQueuedReplot);
}

void GeometryPlot::placeBestLabel() {
  // Beside the l* line, at the top or the bottom of S's panel: the first of the four corners
  // (the preferred side first) whose box covers none of S's markers, or the one covering fewest.
  QCPAxisRect* score = m_panels[ScorePanel];
  const QFontMetricsF metrics(m_bestLabel->font());
  const QMargins padding = m_bestLabel->padding();
  const QSizeF size(
      metrics.horizontalAdvance(m_bestLabel->text()) + padding.left() + padding.right(),
      metrics.height() + padding.top() + padding.bottom());
  const QCPGraph* values = m_values[ScorePanel];
  const double line =
      score->axis(QCPAxis::atBottom)->coordToPixel(m_bestLines[ScorePanel]->point1->coords().x());
  const double radius = std::max(m_markerSize, kSmallMarker) / 2 + 1;
  const auto covered = [&](const QRectF& box) {
    int count = 0;
    for (auto point = values->data()->constBegin(); point != values->data()->constEnd(); ++point) {
      const QPointF at(score->axis(QCPAxis::atBottom)->coordToPixel(point->key),
                       score->axis(QCPAxis::atLeft)->coordToPixel(point->value));
      if (box.intersects(QRectF(at - QPointF(radius, radius), at + QPointF(radius, radius))))
        ++count;
    }
    return count;
  };
  int fewest = std::numeric_limits<int>::max();
  for (const bool left : {m_bestLabelLeft, !m_bestLabelLeft})
    for (const bool top : {true, false}) {
      const double x = left ? line - kBestLabelOffset - size.width() : line + kBestLabelOffset;
      const double y = top ? score->top() : score->bottom() - size.height();
      const QRectF box(QPointF(x, y), size);
      const int count =
          QRectF(score->rect()).contains(box) ? covered(box) : std::numeric_limits<int>::max() - 1;
      if (count >= fewest) continue;
      fewest = count;
      // At the bottom a pixel inside the panel, whose last row is at height - 1.
      const double bottom = 1.0 - 1.0 / std::max(score->height(), 1);
      m_bestLabel->position->setCoords(left ? -kBestLabelOffset : kBestLabelOffset,
                                       top ? 0 : bottom);
      m_bestLabel->setPositionAlignment((left ? Qt::AlignRight : Qt::AlignLeft) |
                                        (top ? Qt::AlignTop : Qt::AlignBottom));
      if (count == 0) return;
    }
}

}  // namespace strata
