#include "geometry_plot.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "layer_geometry_view_ticks.h"
#include "plot_palette.h"

namespace strata {
namespace {

const QColor kPanelColours[GeometryPlot::PanelCount] = {QColor(31, 119, 180), QColor(255, 127, 14),
                                                        QColor(44, 160, 44), QColor(148, 103, 189)};
const QColor kBestColour(214, 39, 40);
constexpr int kClickSlopPixels = 4;
// Below each panel: a little air. Above it: the title strip (stackPanel). The halves of the
// value labels at a panel's top and bottom reach into these gaps, in the left margin, clear of
// the title, which starts at the panel's left edge.
constexpr int kGapBelowPanel = 2;
constexpr int kGapUnderTitle = 1;
const QMargins kTitlePadding(3, 0, 3, 0);
// Marker diameters and the room (pixels per layer) each needs so neighbours stay apart.
constexpr double kFullMarker = 6, kFullMarkerRoom = 14;
constexpr double kSmallMarker = 4, kSmallMarkerRoom = 7;
constexpr double kBestRing = 10;
constexpr double kBestStar = 16;
constexpr double kBestLabelOffset = kBestStar / 2 + 3;  // pixels from the l* line to its label
constexpr double kMinorTickRoom = 4;  // pixels at least between two minor layer ticks
// Room above and below the data of a panel, a share of its height (more on short panels).
constexpr double kRangePadding = 0.07;

const char* panelLabel(int panel) {
  switch (panel) {
    case GeometryPlot::CurvaturePanel:
      return "curvature m_curv";
    case GeometryPlot::MonotonicityPanel:
      return "monotonicity m_mono";
    case GeometryPlot::EffectiveRankPanel:
      return "eff. rank k_eff";
    default:
      return "score S";
  }
}

/** The symbol alone, the title a narrow panel shows: a proxy's series name, or S. */
QString panelSymbol(int panel) {
  if (panel == GeometryPlot::ScorePanel) return QStringLiteral("S");
  // CurvaturePanel = kCurvatureSeries, …
  return QString::fromStdString(geometry::builtInSeries()[std::size_t(panel)].info.name);
}

QString panelToolTip(int panel) {
  if (panel != GeometryPlot::ScorePanel)  // CurvaturePanel = kCurvatureSeries, …
    return QString::fromStdString(geometry::builtInSeries()[std::size_t(panel)].info.description);
  return GeometryPlot::tr(
      "Score S = w_c·z(log m_curv) + w_m·z(log m_mono) − w_k·z(log k_eff) "
      "(+ the weighted plugin metrics), over the candidate layers");
}

QFont titleFont(const QFont& base) {
  QFont font = base;
  font.setBold(true);
  return font;
}

/** Pixels the title item needs for `text` (its padding included). */
int titleWidth(const QFontMetrics& metrics, const QString& text) {
  return metrics.horizontalAdvance(text) + kTitlePadding.left() + kTitlePadding.right();
}

QCPItemRect* makeShade(QCustomPlot* plot, QCPAxisRect* rect) {
  auto* shade = new QCPItemRect(plot);
  shade->setClipAxisRect(rect);
  for (QCPItemPosition* p : {shade->topLeft, shade->bottomRight}) {
    p->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    p->setAxisRect(rect);
    p->setTypeX(QCPItemPosition::ptPlotCoords);
    p->setTypeY(QCPItemPosition::ptAxisRectRatio);
  }
  shade->topLeft->setCoords(0, 0);
  shade->bottomRight->setCoords(0, 1);
  shade->setPen(Qt::NoPen);
  shade->setBrush(QColor(128, 128, 128, 40));
  shade->setLayer(QStringLiteral("background"));
  shade->setSelectable(false);
  shade->setVisible(false);
  return shade;
}

}  // namespace

GeometryPlot::GeometryPlot(QWidget* parent)
    : QCustomPlot(parent), m_layerTicker(QSharedPointer<LayerTicker>::create()) {
  followPalette(this);
  setMinimumWidth(kMinimumWidth);
  setMouseTracking(true);
  // Tick counts, the layer step and the titles follow each layout, before anything is drawn.
  connect(this, &QCustomPlot::beforeReplot, this, &GeometryPlot::fitPanels);
  connect(this, &QCustomPlot::afterLayout, this, &GeometryPlot::fitTitles);
  plotLayout()->clear();
  plotLayout()->setRowSpacing(0);  // the title strips and gaps keep the panels apart
  auto* margins = m_margins = new QCPMarginGroup(this);
  for (int p = 0; p < PanelCount; ++p) {
    auto* rect = new QCPAxisRect(this);
    plotLayout()->addElement(p, 0, rect);
    rect->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    stackPanel(rect, p == ScorePanel);
    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    QCPAxis* y = rect->axis(QCPAxis::atLeft);
    y->setTicker(QSharedPointer<ValueTicker>::create());
    addTitle(rect, QString::fromLatin1(panelLabel(p)), panelSymbol(p), panelToolTip(p),
             kPanelColours[p]);
    m_titles.back().axis = y;
    x->setTicker(m_layerTicker);        // one ticker: every panel's grid lines at the same layers
    x->setTickLabels(p == ScorePanel);  // one layer axis, under the last panel
    if (p == ScorePanel) x->setLabel(tr("layer"));
    if (p > 0)
      connect(m_panels[0]->axis(QCPAxis::atBottom),
              qOverload<const QCPRange&>(&QCPAxis::rangeChanged), x,
              qOverload<const QCPRange&>(&QCPAxis::setRange));
    m_panels[p] = rect;

    m_shadeBefore[p] = makeShade(this, rect);
    m_shadeAfter[p] = makeShade(this, rect);

    if (p != ScorePanel) {
      m_bandLow[p] = addGraph(x, y);
      m_bandHigh[p] = addGraph(x, y);
      QColor band = kPanelColours[p];
      band.setAlpha(60);
      m_bandLow[p]->setPen(Qt::NoPen);
      m_bandHigh[p]->setPen(Qt::NoPen);
      m_bandHigh[p]->setBrush(band);
      m_bandHigh[p]->setChannelFillGraph(m_bandLow[p]);
      m_bandLow[p]->setName(QStringLiteral("%1 interval low").arg(QLatin1String(panelLabel(p))));
      m_bandHigh[p]->setName(QStringLiteral("%1 interval high").arg(QLatin1String(panelLabel(p))));
    }
    m_values[p] = addGraph(x, y);
    m_values[p]->setName(QString::fromLatin1(panelLabel(p)));
    m_values[p]->setPen(QPen(kPanelColours[p], 2));
    m_values[p]->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, kPanelColours[p], Qt::white, kFullMarker));
    if (p != ScorePanel) m_bestMarkers[p] = addBestMarker(x, y);

    auto* line = new QCPItemStraightLine(this);
    line->setClipAxisRect(rect);
    for (QCPItemPosition* point : {line->point1, line->point2}) point->setAxes(x, y);
    line->setPen(QPen(kBestColour, 1.5, Qt::DashLine));
    line->setVisible(false);
    m_bestLines[p] = line;
  }

  QCPAxisRect* score = m_panels[ScorePanel];
  m_bestPoint = addGraph(score->axis(QCPAxis::atBottom), score->axis(QCPAxis::atLeft));
  m_bestPoint->setName(QStringLiteral("l*"));
  m_bestPoint->setLineStyle(QCPGraph::lsNone);
  m_bestPoint->setScatterStyle(
      QCPScatterStyle(QCPScatterStyle::ssStar, QPen(kBestColour, 2), kBestColour, kBestStar));
  m_bestLabel = new QCPItemText(this);
  m_bestLabel->setClipAxisRect(score);
  // At the top of the panel (inside it however short it is), a few pixels beside the l* line,
  // clear of the star at S's highest point: x is a pixel offset from the line (setScores).
  m_bestLabel->position->setAxisRect(score);
  m_bestLabel->position->setParentAnchorX(m_bestLines[ScorePanel]->point1);
  m_bestLabel->position->setTypeX(QCPItemPosition::ptAbsolute);
  m_bestLabel->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
  m_bestLabel->position->setCoords(kBestLabelOffset, 0);
  m_bestLabel->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
  m_bestLabel->setPadding(QMargins(3, 1, 3, 1));
  m_bestLabel->setColor(kBestColour);
  QFont bold = font();
  bold.setBold(true);
  m_bestLabel->setFont(bold);
  m_bestLabel->setVisible(false);
  updateMinimumHeight();
}

void GeometryPlot::stackPanel(QCPAxisRect* rect, bool carriesLayerAxis) const {
  rect->setAutoMargins(carriesLayerAxis ? QCP::msLeft | QCP::msRight | QCP::msBottom
                                        : QCP::msLeft | QCP::msRight);
  const int titleStrip =
      QFontMetrics(titleFont(font())).height() + kTitlePadding.top() + kTitlePadding.bottom();
  rect->setMargins(QMargins(0, titleStrip + kGapUnderTitle, 0, kGapBelowPanel));
}

QCPItemText* GeometryPlot::addTitle(QCPAxisRect* rect, const QString& full, const QString& brief,
                                    const QString& toolTip, const QColor& colour) {
  // Anchored at the panel's top-left corner and drawn upwards into the strip above it, so it
  // never covers the data and has the whole width of the panel.
  auto* item = new QCPItemText(this);
  item->position->setType(QCPItemPosition::ptAxisRectRatio);
  item->position->setAxisRect(rect);
  item->position->setCoords(0, 0);
  item->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
  item->setTextAlignment(Qt::AlignLeft);
  item->setClipToAxisRect(false);
  item->setPadding(kTitlePadding);
  item->setFont(titleFont(font()));
  item->setColor(colour.darker(130));
  item->setSelectable(false);
  item->setText(full);
  m_titles.push_back({rect, nullptr, item, full, brief, toolTip});
  return item;
}

QCPGraph* GeometryPlot::addBestMarker(QCPAxis* x, QCPAxis* y) {
  QCPGraph* ring = addGraph(x, y);
  ring->setName(QStringLiteral("l* value"));
  ring->setLineStyle(QCPGraph::lsNone);
  ring->setScatterStyle(
      QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(kBestColour, 2), Qt::NoBrush, kBestRing));
  return ring;
}

QCPItemText* GeometryPlot::titleItem(int index) const { return m_titles[std::size_t(index)].item; }

QString GeometryPlot::fullTitle(int index) const { return m_titles[std::size_t(index)].full; }

QCPAxisRect* GeometryPlot::titlePanel(int index) const { return m_titles[std::size_t(index)].rect; }

QCPAxis* GeometryPlot::layerAxis() const { return m_panels[ScorePanel]->axis(QCPAxis::atBottom); }

int GeometryPlot::layerTickStep() const { return m_layerTicker->step(); }

void GeometryPlot::updateMinimumHeight() {
  const int panels = PanelCount + pluginPanelCount();
  setMinimumHeight(panels * kMinimumPanelHeight + kLayerAxisHeight);
}

std::vector<QCPAxisRect*> GeometryPlot::panelsTopToBottom() const {
  std::vector<QCPAxisRect*> rects(m_panels, m_panels + EffectiveRankPanel + 1);
  for (const PluginPanel& panel : m_pluginPanels) rects.push_back(panel.rect);
  rects.push_back(m_panels[ScorePanel]);
  return rects;
}

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

QString GeometryPlot::titleToolTip(const QPoint& pixel) const {
  for (const PanelTitle& title : m_titles) {
    const QRectF box(title.item->topLeft->pixelPosition(),
                     title.item->bottomRight->pixelPosition());
    const bool onTitle = box.contains(pixel);
    const bool onTicks = title.axis && title.axis->getPartAt(pixel) == QCPAxis::spTickLabels;
    if (onTitle || onTicks)
      return title.toolTip.isEmpty() ? title.full
                                     : title.full + QStringLiteral("\n") + title.toolTip;
  }
  return {};
}

void GeometryPlot::rebuildPluginPanels() {
  for (std::size_t t = PanelCount; t < m_titles.size(); ++t) removeItem(m_titles[t].item);
  m_titles.resize(PanelCount);  // the plugin panels' titles go with them
  for (const PluginPanel& panel : m_pluginPanels) {
    removeGraph(panel.values);
    removeGraph(panel.bestMarker);
    removeItem(panel.bestLine);
    plotLayout()->remove(panel.rect);
  }
  m_pluginPanels.clear();
  plotLayout()->take(m_panels[ScorePanel]);
  plotLayout()->simplify();
  QCPAxis* layerAxis = m_panels[0]->axis(QCPAxis::atBottom);
  std::size_t m = 0;  // plugin panel index
  for (const geometry::MetricSeries& series : m_series) {
    if (series.builtIn) continue;  // the proxies have their fixed panels
    const QColor colour = QColor::fromHsv(static_cast<int>(30 + 70 * m) % 360, 170, 170);
    PluginPanel panel;
    panel.rect = new QCPAxisRect(this);
    plotLayout()->addElement(EffectiveRankPanel + 1 + static_cast<int>(m), 0, panel.rect);
    panel.rect->setMarginGroup(QCP::msLeft | QCP::msRight, m_margins);
    stackPanel(panel.rect, false);
    QCPAxis* x = panel.rect->axis(QCPAxis::atBottom);
    QCPAxis* y = panel.rect->axis(QCPAxis::atLeft);
    const QString name = QString::fromStdString(series.info.name);
    y->setTicker(QSharedPointer<ValueTicker>::create());
    addTitle(panel.rect, name, name,
             tr("%1 (plugin; %2 is better)")
                 .arg(QString::fromStdString(series.info.description),
                      series.info.higherIsBetter ? tr("higher") : tr("lower")),
             colour);
    m_titles.back().axis = y;
    x->setTicker(m_layerTicker);
    x->setTickLabels(false);
    x->setRange(layerAxis->range());
    connect(layerAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), x,
            qOverload<const QCPRange&>(&QCPAxis::setRange));
    panel.values = addGraph(x, y);
    panel.values->setName(name);
    panel.values->setPen(QPen(colour, m_markerSize >= kFullMarker ? 2 : 1.5));
    panel.values->setScatterStyle(
        m_markerSize > 0
            ? QCPScatterStyle(QCPScatterStyle::ssDiamond, colour, Qt::white, m_markerSize)
            : QCPScatterStyle(QCPScatterStyle::ssNone));
    panel.bestMarker = addBestMarker(x, y);
    panel.bestLine = new QCPItemStraightLine(this);
    panel.bestLine->setClipAxisRect(panel.rect);
    for (QCPItemPosition* point : {panel.bestLine->point1, panel.bestLine->point2})
      point->setAxes(x, y);
    panel.bestLine->setPen(QPen(kBestColour, 1.5, Qt::DashLine));
    panel.bestLine->setVisible(false);
    m_pluginPanels.push_back(panel);
    ++m;
  }
  plotLayout()->addElement(EffectiveRankPanel + 1 + static_cast<int>(m), 0, m_panels[ScorePanel]);
  updateMinimumHeight();
}

void GeometryPlot::setReport(std::shared_ptr<const geometry::GeometryReport> report) {
  m_report = std::move(report);
  m_series = geometry::metricSeries(*m_report);
  rebuildPluginPanels();
  QVector<double> keys;
  for (const geometry::LayerGeometry& layer : m_report->layers)
    keys << static_cast<double>(layer.layer);
  // One line per series: a proxy on its panel with its band, a plugin metric on its own panel.
  // Undefined values (docs/geometry.md, "Degenerate layers") are never handed to the plot: each
  // line and band holds only its layers with a defined value, so no NaN point is drawn.
  std::size_t plugin = 0;
  for (std::size_t s = 0; s < m_series.size(); ++s) {
    const geometry::MetricSeries& series = m_series[s];
    QVector<double> valueKeys, values, bandKeys, lows, highs;
    for (std::size_t i = 0; i < series.values.size(); ++i) {
      if (geometry::isDefined(series.values[i]))
        valueKeys << keys[int(i)], values << series.values[i];
      if (i < series.intervals.size() && geometry::isDefined(series.intervals[i].low) &&
          geometry::isDefined(series.intervals[i].high))
        bandKeys << keys[int(i)], lows << series.intervals[i].low,
            highs << series.intervals[i].high;
    }
    if (!series.builtIn) {
      m_pluginPanels[plugin++].values->setData(valueKeys, values, true);
      continue;
    }
    const auto panel = static_cast<Panel>(s);  // CurvaturePanel = kCurvatureSeries, …
    m_values[panel]->setData(valueKeys, values, true);
    m_bandLow[panel]->setData(bandKeys, lows, true);
    m_bandHigh[panel]->setData(bandKeys, highs, true);
  }
  if (!keys.isEmpty())
    m_panels[0]->axis(QCPAxis::atBottom)->setRange(keys.front() - 0.5, keys.back() + 0.5);
  rescaleValueAxes();
  replot(rpQueuedReplot);
}

void GeometryPlot::setScores(const geometry::LayerScores& scores,
                             const geometry::LayerRange& candidates) {
  QVector<double> keys, values;
  const std::size_t n = m_report ? m_report->layers.size() : 0;
  for (std::size_t i = 0; i < n && i < scores.score.size(); ++i) {
    // Only layers with a score: outside the candidates and excluded (undefined) layers are
    // skipped, so the curve joins the scored layers and no NaN point is drawn.
    if (!geometry::isDefined(scores.score[i])) continue;
    keys << static_cast<double>(m_report->layers[i].layer);
    values << scores.score[i];
  }
  m_values[ScorePanel]->setData(keys, values, true);

  const bool hasBest = scores.bestIndex >= 0 && static_cast<std::size_t>(scores.bestIndex) < n &&
                       static_cast<std::size_t>(scores.bestIndex) < scores.score.size();
  const auto best = static_cast<std::size_t>(std::max<int64_t>(scores.bestIndex, 0));
  const double bestKey = hasBest ? static_cast<double>(m_report->layers[best].layer) : 0;
  const double bestValue = hasBest ? scores.score[best] : 0;
  m_bestPoint->data()->clear();
  if (hasBest) m_bestPoint->addData(bestKey, bestValue);
  // A ring on every metric's value at l*, so it stands out among many layers.
  const auto ring = [&](QCPGraph* marker, const geometry::MetricSeries& series) {
    marker->data()->clear();
    if (hasBest && best < series.values.size() && geometry::isDefined(series.values[best]))
      marker->addData(bestKey, series.values[best]);
  };
  std::size_t plugin = 0;
  for (std::size_t s = 0; s < m_series.size(); ++s) {
    if (m_series[s].builtIn)
      ring(m_bestMarkers[s], m_series[s]);  // CurvaturePanel = kCurvatureSeries, …
    else
      ring(m_pluginPanels[plugin++].bestMarker, m_series[s]);
  }
  for (int p = 0; p < PanelCount; ++p) {
    m_bestLines[p]->setVisible(hasBest);
    m_bestLines[p]->point1->setCoords(bestKey, 0);
    m_bestLines[p]->point2->setCoords(bestKey, 1);
  }
  for (const PluginPanel& panel : m_pluginPanels) {
    panel.bestLine->setVisible(hasBest);
    panel.bestLine->point1->setCoords(bestKey, 0);
    panel.bestLine->point2->setCoords(bestKey, 1);
  }
  m_bestLabel->setVisible(hasBest);

  const double middle =
      n ? 0.5 * static_cast<double>(m_report->layers.front().layer + m_report->layers.back().layer)
        : 0;
  // In the right half the label goes left of the star, so it never runs off the panel
  // (placeBestLabel moves it off S's markers once the panel is laid out).
  m_bestLabelLeft = bestKey > middle;
  m_bestLabel->setText(tr("l* = %1").arg(static_cast<qlonglong>(bestKey)));

  // Shade what lies outside first..last in every panel.
  const double low = n ? static_cast<double>(m_report->layers.front().layer) - 0.5 : 0;
  const double high = n ? static_cast<double>(m_report->layers.back().layer) + 0.5 : 0;
  for (int p = 0; p < PanelCount; ++p) {
    const double first = static_cast<double>(candidates.first) - 0.5;
    const double last = static_cast<double>(candidates.last) + 0.5;
    m_shadeBefore[p]->setVisible(n > 0 && first > low);
    m_shadeBefore[p]->topLeft->setCoords(low, 0);
    m_shadeBefore[p]->bottomRight->setCoords(first, 1);
    m_shadeAfter[p]->setVisible(n > 0 && last < high);
    m_shadeAfter[p]->topLeft->setCoords(last, 0);
    m_shadeAfter[p]->bottomRight->setCoords(high, 1);
  }
  rescaleValueAxes();
  replot(rpQueuedReplot);
}

void GeometryPlot::setLogScale(bool logarithmic) {
  m_logScale = logarithmic;
  for (int p = 0; p < ScorePanel; ++p) {
    QCPAxis* y = m_panels[p]->axis(QCPAxis::atLeft);
    y->setScaleType(logarithmic ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    if (logarithmic)
      y->setTicker(QSharedPointer<LogValueTicker>::create());  // never crowds a short panel
    else
      y->setTicker(QSharedPointer<ValueTicker>::create());
  }
  rescaleValueAxes();
  replot(rpQueuedReplot);
}

void GeometryPlot::rescaleValueAxes() {
  // Room at both ends of every value axis, a share of the panel's data height: a fixed share,
  // or more on a short panel, so that the l* ring (and on S the star) is never cut by the edge.
  const auto share = [this](double pixels, double least) {
    return m_dataHeight > 0 ? std::max(least, pixels / m_dataHeight) : least;
  };
  const double ring = share(kBestRing / 2 + 2, kRangePadding);
  const double star = share(kBestStar / 2 + 2, 2 * kRangePadding);
  std::vector<QCPAxis*> axes;
  for (int p = 0; p < PanelCount; ++p) axes.push_back(m_panels[p]->axis(QCPAxis::atLeft));
  for (const PluginPanel& panel : m_pluginPanels) axes.push_back(panel.rect->axis(QCPAxis::atLeft));
  for (std::size_t p = 0; p < axes.size(); ++p) {
    QCPAxis* y = axes[p];
    y->rescale(true);
    const QCPRange range = y->range();
    const bool logarithmic = y->scaleType() == QCPAxis::stLogarithmic;
    const auto toAxis = [&](double v) { return logarithmic ? std::log10(v) : v; };
    const auto fromAxis = [&](double v) { return logarithmic ? std::pow(10.0, v) : v; };
    double low = toAxis(range.lower), high = toAxis(range.upper);
    if (!(high - low > 0)) {  // one value (or none): a band around it
      const double pad = logarithmic ? 0.05 : std::max(1e-9, std::abs(0.5 * (low + high)) * 0.1);
      low -= pad;
      high += pad;
    }
    const double bottom = ring;
    const double top = p == std::size_t(ScorePanel) ? star : ring;
    // The data fill 1 − bottom − top of the height; the rest is the room above and below.
    const double whole = (high - low) / std::max(0.2, 1.0 - bottom - top);
    y->setRange(fromAxis(low - bottom * whole), fromAxis(high + top * whole));
  }
}

int64_t GeometryPlot::layerAt(const QPoint& pixel) const {
  if (!m_report || m_report->layers.empty()) return -1;
  QCPAxisRect* rect = axisRectAt(pixel);
  if (!rect) return -1;
  const double key = rect->axis(QCPAxis::atBottom)->pixelToCoord(pixel.x());
  for (const geometry::LayerGeometry& layer : m_report->layers)
    if (std::abs(key - static_cast<double>(layer.layer)) <= 0.5) return layer.layer;
  return -1;
}

double GeometryPlot::pixelOf(int64_t layer) const {
  return m_panels[0]->axis(QCPAxis::atBottom)->coordToPixel(static_cast<double>(layer));
}

void GeometryPlot::mousePressEvent(QMouseEvent* event) {
  m_pressPosition = event->pos();
  QCustomPlot::mousePressEvent(event);
}

void GeometryPlot::mouseReleaseEvent(QMouseEvent* event) {
  QCustomPlot::mouseReleaseEvent(event);
  if (event->button() != Qt::LeftButton ||
      (event->pos() - m_pressPosition).manhattanLength() > kClickSlopPixels)
    return;
  const int64_t layer = layerAt(event->pos());
  if (layer >= 0) emit layerClicked(layer);
}

void GeometryPlot::mouseMoveEvent(QMouseEvent* event) {
  QCustomPlot::mouseMoveEvent(event);
  emit layerHovered(layerAt(event->pos()), event->globalPosition().toPoint());
}

}  // namespace strata
