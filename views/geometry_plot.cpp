#include "geometry_plot.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "plot_palette.h"

namespace strata {
namespace {

const QColor kPanelColours[GeometryPlot::PanelCount] = {QColor(31, 119, 180), QColor(255, 127, 14),
                                                        QColor(44, 160, 44), QColor(148, 103, 189)};
const QColor kBestColour(214, 39, 40);
constexpr int kClickSlopPixels = 4;
// Above and below each panel: room for half a tick label, not for a hidden axis's ticks.
const QMargins kPanelGap(0, 8, 0, 4);
// Panels shorter than this get fewer value ticks, so their labels never crowd.
constexpr int kFewTicksBelow = 130;

/** Fixed gaps above and below `rect`; the left and right margins follow the axes. */
void stackPanel(QCPAxisRect* rect, bool carriesLayerAxis) {
  rect->setAutoMargins(carriesLayerAxis ? QCP::msLeft | QCP::msRight | QCP::msBottom
                                        : QCP::msLeft | QCP::msRight);
  rect->setMargins(kPanelGap);
}

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

/** The symbol alone, the title a short panel shows: a proxy's series name, or S. */
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

/** The width `text` takes as an axis title (QCustomPlot measures it the same way). */
int titleLength(const QFontMetrics& metrics, const QString& text) {
  return metrics.boundingRect(QRect(), Qt::TextDontClip, text).width();
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

GeometryPlot::GeometryPlot(QWidget* parent) : QCustomPlot(parent) {
  followPalette(this);
  setMinimumWidth(kMinimumWidth);
  setMouseTracking(true);
  // Tick counts and titles follow the panel heights of each layout, before anything is drawn.
  connect(this, &QCustomPlot::beforeReplot, this, &GeometryPlot::fitTickCounts);
  connect(this, &QCustomPlot::afterLayout, this, &GeometryPlot::fitAxisTitles);
  plotLayout()->clear();
  auto* margins = m_margins = new QCPMarginGroup(this);
  for (int p = 0; p < PanelCount; ++p) {
    auto* rect = new QCPAxisRect(this);
    plotLayout()->addElement(p, 0, rect);
    rect->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    stackPanel(rect, p == ScorePanel);
    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    QCPAxis* y = rect->axis(QCPAxis::atLeft);
    y->setLabel(panelSymbol(p));
    y->setLabelColor(kPanelColours[p].darker(120));
    m_titles.push_back({y, QString::fromLatin1(panelLabel(p)), panelSymbol(p), panelToolTip(p)});
    auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
    ticker->setTickStep(1.0);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);  // 1, 2, 5, 10… for deep models
    x->setTicker(ticker);
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
        QCPScatterStyle(QCPScatterStyle::ssCircle, kPanelColours[p], Qt::white, 6));

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
      QCPScatterStyle(QCPScatterStyle::ssStar, QPen(kBestColour, 2), kBestColour, 16));
  m_bestLabel = new QCPItemText(this);
  m_bestLabel->setClipAxisRect(score);
  m_bestLabel->position->setAxes(score->axis(QCPAxis::atBottom), score->axis(QCPAxis::atLeft));
  // Beside the star, not above it: a short score panel has no room above its maximum.
  m_bestLabel->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
  m_bestLabel->setPadding(QMargins(12, 2, 12, 2));
  m_bestLabel->setColor(kBestColour);
  QFont bold = font();
  bold.setBold(true);
  m_bestLabel->setFont(bold);
  m_bestLabel->setVisible(false);
  updateMinimumHeight();
}

void GeometryPlot::updateMinimumHeight() {
  const int panels = PanelCount + pluginPanelCount();
  setMinimumHeight(panels * kMinimumPanelHeight + kLayerAxisHeight);
}

void GeometryPlot::fitTickCounts() {
  // Before the layout, so the margins are computed for the tick labels that will be drawn.
  const int panels = PanelCount + pluginPanelCount();
  const int panelHeight = (height() - kLayerAxisHeight) / std::max(panels, 1);
  for (const AxisTitle& title : m_titles)
    if (title.axis->scaleType() == QCPAxis::stLinear)
      title.axis->ticker()->setTickCount(panelHeight < kFewTicksBelow ? 3 : 5);
}

void GeometryPlot::fitAxisTitles() {
  // QCustomPlot centres a title on its axis and lets a longer one run over the neighbouring
  // panels (or off the widget). Every panel shows its full name when all of them fit, else
  // its symbol (one style for all panels), elided where even that is too long.
  const auto room = [](const AxisTitle& title) { return title.axis->axisRect()->height() - 2; };
  const bool full = std::all_of(m_titles.begin(), m_titles.end(), [&](const AxisTitle& title) {
    return titleLength(QFontMetrics(title.axis->labelFont()), title.full) <= room(title);
  });
  for (const AxisTitle& title : m_titles) {
    const QFontMetrics metrics(title.axis->labelFont());
    QString text = full ? title.full : title.brief;
    if (titleLength(metrics, text) > room(title))
      text = metrics.elidedText(title.brief, Qt::ElideRight, std::max(room(title), 0));
    if (text.isEmpty()) text = QStringLiteral("…");  // never empty: that would change the margins
    title.axis->setLabel(text);
  }
}

QString GeometryPlot::titleToolTip(const QPoint& pixel) const {
  for (const AxisTitle& title : m_titles) {
    const QCPAxis::SelectablePart part = title.axis->getPartAt(pixel);
    if (part == QCPAxis::spAxisLabel || part == QCPAxis::spTickLabels)
      return title.toolTip.isEmpty() ? title.full
                                     : title.full + QStringLiteral("\n") + title.toolTip;
  }
  return {};
}

void GeometryPlot::rebuildPluginPanels() {
  m_titles.resize(PanelCount);  // the plugin panels' titles go with them
  for (const PluginPanel& panel : m_pluginPanels) {
    removeGraph(panel.values);
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
    y->setLabel(name);
    y->setLabelColor(colour.darker(120));
    m_titles.push_back({y, name, name,
                        tr("%1 (plugin; %2 is better)")
                            .arg(QString::fromStdString(series.info.description),
                                 series.info.higherIsBetter ? tr("higher") : tr("lower"))});
    x->setTicker(layerAxis->ticker());
    x->setTickLabels(false);
    x->setRange(layerAxis->range());
    connect(layerAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), x,
            qOverload<const QCPRange&>(&QCPAxis::setRange));
    panel.values = addGraph(x, y);
    panel.values->setName(name);
    panel.values->setPen(QPen(colour, 2));
    panel.values->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssDiamond, colour, Qt::white, 6));
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
  m_bestLabel->position->setCoords(bestKey, bestValue);
  const double middle =
      n ? 0.5 * static_cast<double>(m_report->layers.front().layer + m_report->layers.back().layer)
        : 0;
  // In the right half the label goes left of the star, so it never runs off the panel.
  m_bestLabel->setPositionAlignment((bestKey > middle ? Qt::AlignRight : Qt::AlignLeft) |
                                    Qt::AlignVCenter);
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
      y->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    else
      y->setTicker(QSharedPointer<QCPAxisTicker>::create());
  }
  rescaleValueAxes();
  replot(rpQueuedReplot);
}

void GeometryPlot::rescaleValueAxes() {
  std::vector<QCPAxis*> axes;
  for (int p = 0; p < PanelCount; ++p) axes.push_back(m_panels[p]->axis(QCPAxis::atLeft));
  for (const PluginPanel& panel : m_pluginPanels) axes.push_back(panel.rect->axis(QCPAxis::atLeft));
  for (std::size_t p = 0; p < axes.size(); ++p) {
    QCPAxis* y = axes[p];
    y->rescale(true);
    QCPRange range = y->range();
    if (y->scaleType() == QCPAxis::stLogarithmic) {
      range.lower /= 1.15;
      range.upper *= 1.15;
    } else {
      const double pad =
          range.size() > 0 ? range.size() * 0.08 : std::max(1e-9, std::abs(range.center()) * 0.1);
      // Room above S for half the l* label when the best layer is the highest point.
      range.lower -= pad;
      range.upper += p == std::size_t(ScorePanel) ? 2 * pad : pad;
    }
    y->setRange(range);
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
