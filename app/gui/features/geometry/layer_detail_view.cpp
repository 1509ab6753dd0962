#include "layer_detail_view.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QSplitter>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>

#include "display_text.h"
#include "geometry_table_model.h"
#include "plot_export.h"
#include "plot_palette.h"
#include "token_context_strip.h"

namespace strata {
namespace {

constexpr int kColourGroups = 16;  // one scatter graph per colour band
const QColor kLineColour(31, 119, 180);
const QColor kMarkColour(214, 39, 40);
constexpr int kClickSlopPixels = 4;

QCustomPlot* makePlot(QWidget* parent, const QString& title) {
  auto* plot = new QCustomPlot(parent);
  followPalette(plot);
  plot->setMinimumSize(260, 200);
  plot->setWindowTitle(title);
  plot->plotLayout()->insertRow(0);
  auto* heading = new QCPTextElement(plot, title, QFont(plot->font().family(), -1, QFont::Bold));
  plot->plotLayout()->addElement(0, 0, heading);
  return plot;
}

/**
 * A log axis labelled at 1-2-5 × 10^k (only 10^k when the range spans more than four
 * decades). QCPAxisTickerLog falls back to linear steps over ranges of one or two decades,
 * which leaves the lower part of a spectrum unlabelled. Call after the range is final.
 */
void useLogTicks(QCPAxis* axis) {
  axis->setScaleType(QCPAxis::stLogarithmic);
  const QCPRange range = axis->range();
  if (!(range.lower > 0) || !(range.upper > range.lower)) return;
  const bool sparse = std::log10(range.upper / range.lower) > 4;
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  for (int k = static_cast<int>(std::floor(std::log10(range.lower)));
       k <= static_cast<int>(std::ceil(std::log10(range.upper))); ++k) {
    for (double mantissa : {1.0, 2.0, 5.0}) {
      if (sparse && mantissa != 1.0) continue;
      const double tick = mantissa * std::pow(10.0, k);
      if (tick >= range.lower && tick <= range.upper)
        ticker->addTick(tick, QString::number(tick, 'g', 3));
    }
  }
  ticker->setSubTickCount(0);
  axis->setTicker(ticker);
}

QString percentText(double share) { return QString::number(share * 100, 'f', 1); }

}  // namespace

LayerDetailView::LayerDetailView(std::shared_ptr<const engine::LayerDetail> detail, QWidget* parent)
    : QWidget(parent),
      m_detail(std::move(detail)),
      m_histogram(makeHistogram(m_detail->geometry.localLambdaMax)),
      m_header(new QLabel(this)),
      m_colourBy(new QComboBox(this)),
      m_export(new QToolButton(this)),
      m_context(new TokenContextStrip(this)) {
  const geometry::LayerGeometry& g = m_detail->geometry;
  const int64_t tokens = static_cast<int64_t>(m_detail->plane.coordinates.size() / 2);
  m_header->setText(
      tr("<b>Layer %1</b> of %2 — %3 tokens, d = %4<br><small>m_curv %5 · m_mono %6 · "
         "k_eff %7</small>")
          .arg(g.layer)
          .arg(QFileInfo(toQString(m_detail->storeFile)).fileName().toHtmlEscaped(),
               countText(tokens))
          .arg(m_detail->hiddenSize)
          .arg(proxyIntervalText(g.values.curvature, g.curvature),
               proxyIntervalText(g.values.monotonicity, g.monotonicity),
               proxyIntervalText(g.values.effectiveRank, g.effectiveRank)));
  if (!m_detail->tokenTextNote.empty())  // why hovering shows ids only
    m_header->setText(m_header->text() +
                      QStringLiteral("<br><small>⚠ %1</small>")
                          .arg(QString::fromStdString(m_detail->tokenTextNote).toHtmlEscaped()));
  m_header->setToolTip(toQString(m_detail->storeFile));
  m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);

  m_colourBy->addItem(tr("Colour by position"), static_cast<int>(Colouring::Position));
  m_colourBy->addItem(tr("Colour by token id"), static_cast<int>(Colouring::TokenId));
  connect(m_colourBy, &QComboBox::currentIndexChanged, this, [this](int index) {
    setColouring(static_cast<Colouring>(m_colourBy->itemData(index).toInt()));
  });

  m_spectrum = makePlot(this, tr("Covariance spectrum"));
  m_histogramPlot = makePlot(this, tr("Local λ_max of the k-neighbourhoods"));
  m_scatter = makePlot(this, tr("Tokens on the principal plane"));
  buildSpectrum();
  buildHistogram();
  buildScatter();

  const QString base = QFileInfo(toQString(m_detail->storeFile)).completeBaseName() +
                       QStringLiteral("-layer%1").arg(g.layer);
  m_export->setText(tr("Export"));
  m_export->setPopupMode(QToolButton::InstantPopup);
  auto* menu = new QMenu(m_export);
  const std::pair<QCustomPlot*, QString> plots[] = {{m_spectrum, tr("Spectrum")},
                                                    {m_histogramPlot, tr("λ_max Histogram")},
                                                    {m_scatter, tr("PCA Scatter")}};
  const char* suffixes[] = {"-spectrum", "-lambda-max", "-pca"};
  for (int i = 0; i < 3; ++i)
    addPlotExportActions(menu->addMenu(plots[i].second), plots[i].first,
                         base + QLatin1String(suffixes[i]));
  m_export->setMenu(menu);

  auto* top = new QHBoxLayout;
  top->addWidget(m_header, 1);
  top->addWidget(m_colourBy);
  top->addWidget(m_export);

  auto* left = new QSplitter(Qt::Vertical, this);
  left->addWidget(m_spectrum);
  left->addWidget(m_histogramPlot);
  auto* right = new QSplitter(Qt::Vertical, this);
  right->addWidget(m_scatter);
  right->addWidget(m_context);
  right->setStretchFactor(0, 1);
  right->setStretchFactor(1, 0);
  right->setChildrenCollapsible(false);
  connect(m_context, &TokenContextStrip::tokenClicked, this, &LayerDetailView::selectToken);
  auto* splitter = new QSplitter(Qt::Horizontal, this);
  splitter->addWidget(left);
  splitter->addWidget(right);
  splitter->setStretchFactor(0, 2);
  splitter->setStretchFactor(1, 3);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addWidget(splitter, 1);
}

void LayerDetailView::buildSpectrum() {
  const std::vector<double>& spectrum = m_detail->geometry.spectrum;
  QVector<double> keys, values;
  for (std::size_t i = 0; i < spectrum.size(); ++i) {
    if (!(spectrum[i] > 0)) continue;  // a log axis cannot show 0 (rank-deficient layers)
    keys << static_cast<double>(i + 1);
    values << spectrum[i];
  }
  QCPGraph* graph = m_spectrum->addGraph();
  graph->setName(tr("eigenvalue"));
  graph->setData(keys, values, true);
  graph->setPen(QPen(kLineColour, 1.5));
  graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, kLineColour, Qt::white, 5));
  m_spectrum->xAxis->setLabel(tr("eigenvalue index"));
  m_spectrum->yAxis->setLabel(tr("λ (Σ scaled to tr Σ = d)"));
  m_spectrum->yAxis->setScaleType(QCPAxis::stLogarithmic);
  m_spectrum->rescaleAxes();
  m_spectrum->xAxis->setRange(0.5, std::max<double>(2, keys.size() + 0.5));
  // λ = 1 is the isotropic level: every direction with the mean variance.
  auto* isotropic = new QCPItemStraightLine(m_spectrum);
  isotropic->point1->setCoords(0, 1);
  isotropic->point2->setCoords(1, 1);
  isotropic->setPen(QPen(Qt::gray, 1, Qt::DotLine));
  QCPRange y = m_spectrum->yAxis->range();
  y.lower = std::min(y.lower, 1.0) / 1.5;
  y.upper = std::max(y.upper, 1.0) * 1.5;
  m_spectrum->yAxis->setRange(y);
  useLogTicks(m_spectrum->yAxis);
}

void LayerDetailView::buildHistogram() {
  const Histogram& h = m_histogram;
  QCPGraph* graph = m_histogramPlot->addGraph();
  graph->setName(tr("anchors"));
  graph->setLineStyle(QCPGraph::lsStepLeft);
  QVector<double> keys, values;
  for (std::size_t i = 0; i < h.counts.size(); ++i) {
    keys << h.edges[i];
    values << static_cast<double>(h.counts[i]);
  }
  if (!h.counts.empty()) {  // close the last step at the right edge
    keys << h.edges.back();
    values << static_cast<double>(h.counts.back());
  }
  graph->setData(keys, values, true);
  graph->setPen(QPen(kLineColour, 1.5));
  QColor fill = kLineColour;
  fill.setAlpha(90);
  graph->setBrush(fill);
  m_histogramPlot->xAxis->setLabel(h.logarithmic ? tr("λ_max(C_i) (log-spaced bins)")
                                                 : tr("λ_max(C_i)"));
  m_histogramPlot->yAxis->setLabel(tr("anchors"));
  if (h.logarithmic) m_histogramPlot->xAxis->setScaleType(QCPAxis::stLogarithmic);
  m_histogramPlot->rescaleAxes();
  if (h.logarithmic) useLogTicks(m_histogramPlot->xAxis);
  QCPRange y = m_histogramPlot->yAxis->range();
  m_histogramPlot->yAxis->setRange(0, std::max(1.0, y.upper * 1.1));
  if (!h.edges.empty() && h.edges.front() == h.edges.back()) {
    const double v = h.edges.front();
    m_histogramPlot->xAxis->setRange(v == 0 ? -1 : v * 0.5, v == 0 ? 1 : v * 1.5);
  }

  // m_curv is the median of 1/λ_max: its inverse marks the median neighbourhood.
  const double curvature = m_detail->geometry.values.curvature;
  if (curvature > 0) {
    auto* median = new QCPItemStraightLine(m_histogramPlot);
    median->point1->setCoords(1 / curvature, 0);
    median->point2->setCoords(1 / curvature, 1);
    median->setPen(QPen(kMarkColour, 1.5, Qt::DashLine));
    auto* label = new QCPItemText(m_histogramPlot);
    label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    label->position->setCoords(1 / curvature, 0);
    label->setPositionAlignment(Qt::AlignTop | Qt::AlignLeft);
    label->setPadding(QMargins(4, 2, 2, 2));
    label->setColor(kMarkColour);
    label->setText(tr("1/m_curv"));
  }
}

void LayerDetailView::buildScatter() {
  const geometry::PrincipalPlane& plane = m_detail->plane;
  m_scatter->xAxis->setLabel(tr("PC1 (%1 % of variance)").arg(percentText(plane.explained[0])));
  m_scatter->yAxis->setLabel(tr("PC2 (%1 % of variance)").arg(percentText(plane.explained[1])));
  for (int i = 0; i < kColourGroups; ++i) {
    QCPGraph* group = m_scatter->addGraph();
    group->setLineStyle(QCPGraph::lsNone);
    group->setAdaptiveSampling(false);  // keep every point
  }
  m_colourScale = new QCPColorScale(m_scatter);
  m_colourScale->setType(QCPAxis::atRight);
  m_colourScale->setGradient(QCPColorGradient(QCPColorGradient::gpSpectrum));
  m_colourScale->setBarWidth(10);
  m_scatter->plotLayout()->addElement(1, 1, m_colourScale);
  auto* margins = new QCPMarginGroup(m_scatter);
  m_scatter->axisRect()->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
  m_colourScale->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
  // The selected token: a ring over its point, drawn above the colour groups.
  m_selectionMark = m_scatter->addGraph();
  m_selectionMark->setName(tr("selected token"));
  m_selectionMark->setLineStyle(QCPGraph::lsNone);
  m_selectionMark->setScatterStyle(
      QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(Qt::black, 2), Qt::NoBrush, 12));
  m_scatter->setMouseTracking(true);
  connect(m_scatter, &QCustomPlot::mouseMove, this, &LayerDetailView::scatterMouseMove);
  connect(m_scatter, &QCustomPlot::mousePress, this,
          [this](QMouseEvent* event) { m_pressPosition = event->pos(); });
  connect(m_scatter, &QCustomPlot::mouseRelease, this, &LayerDetailView::scatterMouseRelease);
  colourScatter();
}

void LayerDetailView::setColouring(Colouring colouring) {
  if (colouring == m_colouring) return;
  m_colouring = colouring;
  const int index = m_colourBy->findData(static_cast<int>(colouring));
  if (index != m_colourBy->currentIndex()) m_colourBy->setCurrentIndex(index);
  colourScatter();
}

void LayerDetailView::colourScatter() {
  const std::vector<float>& xy = m_detail->plane.coordinates;
  const std::vector<int32_t>& colourValues =
      m_colouring == Colouring::Position ? m_detail->positions : m_detail->tokenIds;
  const auto tokens = static_cast<int64_t>(xy.size() / 2);
  const bool haveColours = static_cast<int64_t>(colourValues.size()) == tokens && tokens > 0;
  double low = 0, high = 1;
  if (haveColours) {
    const auto [lo, hi] = std::minmax_element(colourValues.begin(), colourValues.end());
    low = *lo;
    high = std::max<double>(*hi, low + 1);
  }
  QCPColorGradient gradient(QCPColorGradient::gpSpectrum);  // color() is not const
  const QCPRange range(low, high);
  // An even stride keeps the scatter responsive for big stores; every token when few.
  const int64_t stride = std::max<int64_t>(1, (tokens + kMaxScatterPoints - 1) / kMaxScatterPoints);
  QVector<double> keys[kColourGroups], values[kColourGroups];
  m_drawnRows.clear();
  for (int64_t t = 0; t < tokens; t += stride) {
    m_drawnRows.push_back(t);
    const double c = haveColours ? colourValues[static_cast<std::size_t>(t)] : low;
    const int group = std::clamp(static_cast<int>((c - low) / (high - low) * kColourGroups), 0,
                                 kColourGroups - 1);
    keys[group] << xy[static_cast<std::size_t>(2 * t)];
    values[group] << xy[static_cast<std::size_t>(2 * t + 1)];
  }
  for (int i = 0; i < kColourGroups; ++i) {
    QColor colour =
        QColor::fromRgb(gradient.color(low + (i + 0.5) * (high - low) / kColourGroups, range));
    colour.setAlpha(170);
    QCPGraph* group = m_scatter->graph(i);
    group->setData(keys[i], values[i]);
    group->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour, colour, 4));
  }
  m_colourScale->setDataRange(range);
  m_colourScale->axis()->setLabel(m_colouring == Colouring::Position ? tr("position")
                                                                     : tr("token id"));
  m_scatter->rescaleAxes();
  for (QCPAxis* axis : {m_scatter->xAxis, m_scatter->yAxis}) axis->scaleRange(1.08);
  m_scatter->replot(QCustomPlot::rpQueuedReplot);
}

int LayerDetailView::scatterPointCount() const {
  int count = 0;
  for (int i = 0; i < kColourGroups; ++i) count += m_scatter->graph(i)->dataCount();
  return count;
}

QPointF LayerDetailView::pixelOf(int64_t row) const {
  const std::vector<float>& xy = m_detail->plane.coordinates;
  const auto r = static_cast<std::size_t>(row);
  if (row < 0 || 2 * r + 1 >= xy.size()) return {-1, -1};
  return {m_scatter->xAxis->coordToPixel(xy[2 * r]), m_scatter->yAxis->coordToPixel(xy[2 * r + 1])};
}

int64_t LayerDetailView::rowAt(const QPoint& pixel) const {
  if (!m_scatter->axisRect()->rect().contains(pixel)) return -1;
  // A linear pass over at most kMaxScatterPoints points: well under a millisecond per move.
  int64_t nearest = -1;
  double best = kPickRadius * kPickRadius;
  for (const int64_t row : m_drawnRows) {
    const QPointF d = pixelOf(row) - QPointF(pixel);
    const double squared = d.x() * d.x() + d.y() * d.y();
    if (squared <= best) best = squared, nearest = row;
  }
  return nearest;
}

QString LayerDetailView::tokenToolTip(int64_t row) const {
  const auto r = static_cast<std::size_t>(row);
  if (row < 0 || r >= m_detail->tokenIds.size()) return {};
  QStringList lines;
  const QString id = QString::number(m_detail->tokenIds[r]);
  lines << (r < m_detail->tokenTexts.size()
                ? tr("“%1” (id %2)").arg(TokenContextStrip::tokenLabel(*m_detail, row), id)
                : tr("token id %1").arg(id));
  const QString position = r < m_detail->positions.size() ? QString::number(m_detail->positions[r])
                                                          : QStringLiteral("?");
  lines << (r < m_detail->documents.size()
                ? tr("document %1, position %2").arg(m_detail->documents[r]).arg(position)
                : tr("position %1").arg(position));
  if (r >= m_detail->tokenTexts.size() && !m_detail->tokenTextNote.empty())
    lines << QString::fromStdString(m_detail->tokenTextNote);
  return lines.join(QLatin1Char('\n'));
}

void LayerDetailView::selectToken(int64_t row) {
  const auto tokens = static_cast<int64_t>(m_detail->plane.coordinates.size() / 2);
  if (row < 0 || row >= tokens) row = -1;
  if (row == m_selected) return;
  m_selected = row;
  m_selectionMark->data()->clear();
  if (row >= 0) {
    const auto r = static_cast<std::size_t>(row);
    m_selectionMark->addData(m_detail->plane.coordinates[2 * r],
                             m_detail->plane.coordinates[2 * r + 1]);
    m_context->showContext(*m_detail, row);
  } else {
    m_context->clearContext();
  }
  m_scatter->replot(QCustomPlot::rpQueuedReplot);
  emit tokenSelected(row);
}

void LayerDetailView::scatterMouseMove(QMouseEvent* event) {
  const int64_t row = rowAt(event->pos());
  if (row == m_hovered && (row < 0 || QToolTip::isVisible())) return;
  m_hovered = row;
  if (row < 0)
    QToolTip::hideText();
  else
    QToolTip::showText(event->globalPosition().toPoint(), tokenToolTip(row), m_scatter);
}

void LayerDetailView::scatterMouseRelease(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton ||
      (event->pos() - m_pressPosition).manhattanLength() > kClickSlopPixels)
    return;
  selectToken(rowAt(event->pos()));  // empty space: −1, the selection is cleared
}

}  // namespace strata
