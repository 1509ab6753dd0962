#include "geometry_plot.h"

#include "geometry_plot_style.h"
#include "layer_geometry_view_ticks.h"
#include "plot_palette.h"

// The panels: made once here (the four fixed ones) and on each report (the plugin metrics').

namespace strata {
using geometry_plot_style::kBestColour;
using geometry_plot_style::kBestLabelOffset;
using geometry_plot_style::kBestRing;
using geometry_plot_style::kBestStar;
using geometry_plot_style::kFullMarker;
using geometry_plot_style::kGapBelowPanel;
using geometry_plot_style::kTitlePadding;
namespace {

const QColor kPanelColours[GeometryPlot::PanelCount] = {QColor(31, 119, 180), QColor(255, 127, 14),
                                                        QColor(44, 160, 44), QColor(148, 103, 189)};
constexpr int kGapUnderTitle = 1;

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

}  // namespace strata
