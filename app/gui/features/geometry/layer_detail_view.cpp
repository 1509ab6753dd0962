#include "layer_detail_view.h"

#include <qcustomplot.h>

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QSplitter>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "display_text.h"
#include "geometry/scatter_outliers.h"
#include "geometry_table_model.h"
#include "layer_geometry_view_ticks.h"
#include "plot_export.h"
#include "titled_plot.h"
#include "token_context_strip.h"
#include "token_list.h"

namespace strata {
namespace {

const QColor kLineColour(31, 119, 180);
const QColor kMarkColour(214, 39, 40);
/** The Outliers list's length at most (the clipped tokens can be many under the 1–99 % range). */
constexpr std::size_t kMaxOutliers = 1000;

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

}  // namespace

LayerDetailView::LayerDetailView(std::shared_ptr<const engine::LayerDetail> detail, QWidget* parent)
    : QWidget(parent),
      m_detail(std::move(detail)),
      m_histogram(makeHistogram(m_detail->geometry.localLambdaMax)),
      m_header(new QLabel(this)),
      m_export(new QToolButton(this)),
      m_context(new TokenContextStrip(this)),
      m_lists(new QTabWidget(this)),
      m_outliers(new TokenList(this)),
      m_boxList(new TokenList(this)) {
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

  m_spectrum = makeTitledPlot(this, tr("Covariance spectrum"));
  m_histogramPlot = makeTitledPlot(this, tr("Local λ_max of the k-neighbourhoods"));
  m_scatter = new TokenScatter(m_detail, this);
  buildSpectrum();
  buildHistogram();

  const QString base = QFileInfo(toQString(m_detail->storeFile)).completeBaseName() +
                       QStringLiteral("-layer%1").arg(g.layer);
  m_export->setText(tr("Export"));
  m_export->setPopupMode(QToolButton::InstantPopup);
  auto* menu = new QMenu(m_export);
  const std::pair<QCustomPlot*, QString> plots[] = {{m_spectrum, tr("Spectrum")},
                                                    {m_histogramPlot, tr("λ_max Histogram")},
                                                    {m_scatter->plot(), tr("PCA Scatter")}};
  const char* suffixes[] = {"-spectrum", "-lambda-max", "-pca"};
  for (int i = 0; i < 3; ++i)
    addPlotExportActions(menu->addMenu(plots[i].second), plots[i].first,
                         base + QLatin1String(suffixes[i]));
  m_export->setMenu(menu);

  auto* top = new QHBoxLayout;
  top->addWidget(m_header, 1);
  top->addWidget(m_export);

  auto* left = new QSplitter(Qt::Vertical, this);
  left->addWidget(m_spectrum);
  left->addWidget(m_histogramPlot);
  // Under the scatter: the selected token's context, and beside it the Outliers and box lists.
  m_lists->addTab(m_outliers, QString());
  m_lists->addTab(m_boxList, QString());
  m_lists->setTabToolTip(
      0, tr("The tokens drawn at the scatter's edge and the %1 of largest ‖h‖").arg(kLargestNorms));
  m_lists->setTabToolTip(1, tr("The tokens in the last box (Shift+drag, or Box Select)"));
  auto* under = new QSplitter(Qt::Horizontal, this);
  under->addWidget(m_context);
  under->addWidget(m_lists);
  under->setStretchFactor(0, 3);
  under->setStretchFactor(1, 2);
  under->setChildrenCollapsible(false);
  auto* right = new QSplitter(Qt::Vertical, this);
  right->addWidget(m_scatter);
  right->addWidget(under);
  right->setStretchFactor(0, 1);
  right->setStretchFactor(1, 0);
  right->setChildrenCollapsible(false);
  connect(m_scatter, &TokenScatter::pointClicked, this, &LayerDetailView::selectToken);
  connect(m_scatter, &TokenScatter::clippingChanged, this, &LayerDetailView::listOutliers);
  connect(m_scatter, &TokenScatter::boxSelected, this, &LayerDetailView::listBox);
  connect(m_context, &TokenContextStrip::tokenClicked, this, &LayerDetailView::selectToken);
  connect(m_outliers, &TokenList::tokenClicked, this, &LayerDetailView::selectToken);
  connect(m_boxList, &TokenList::tokenClicked, this, &LayerDetailView::selectToken);
  listOutliers();
  listBox();
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
  if (h.logarithmic) {
    // Labels for the pixels the axis has (LogValueTicker, the Layer Geometry axes' ticker, told a
    // width and a label's width instead of a height): 1-2-5 labels ran together on a narrow panel.
    m_histogramPlot->xAxis->setTicker(QSharedPointer<LogValueTicker>::create());
    QCustomPlot* plot = m_histogramPlot;
    connect(plot, &QCustomPlot::beforeReplot, plot, [plot] {
      QCPAxis* axis = plot->xAxis;
      const auto ticker = axis->ticker().dynamicCast<LogValueTicker>();
      const QCPRange range = axis->range();
      if (!ticker || !(range.lower > 0) || !(range.upper > range.lower)) return;
      // The widest label: a 5 of the decades shown has as many digits as any 1-2-5 label.
      const QFontMetrics metrics(axis->tickLabelFont());
      int widest = 0;
      for (int d = static_cast<int>(std::floor(std::log10(range.lower)));
           d <= static_cast<int>(std::ceil(std::log10(range.upper))); ++d)
        widest = std::max(widest, metrics.horizontalAdvance(plot->locale().toString(
                                      5 * std::pow(10.0, d), 'g', axis->numberPrecision())));
      // The axis's width as of the last layout (its margins barely change); before it, a guess.
      const QMargins margins = plot->axisRect()->margins();
      const int sides = margins.left() + margins.right();
      ticker->setRoom(plot->width() - (sides > 0 ? sides : 80), widest);
    });
  }
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

void LayerDetailView::listOutliers() {
  const geometry::ScatterClipping& clipping = m_scatter->clipping();
  const std::vector<int64_t> rows =
      geometry::outlierRows(m_detail->norms, clipping.clipped, kLargestNorms, kMaxOutliers);
  m_outliers->showTokens(*m_detail, rows, clipping.clipped);
  m_lists->setTabText(0, tr("Outliers (%1)").arg(groupedText(static_cast<int64_t>(rows.size()))));
}

void LayerDetailView::listBox() {
  const std::vector<int64_t>& rows = m_scatter->boxSelection();
  m_boxList->showTokens(*m_detail, rows, m_scatter->clipping().clipped);
  m_lists->setTabText(1, tr("Box (%1)").arg(groupedText(static_cast<int64_t>(rows.size()))));
  if (!rows.empty()) m_lists->setCurrentWidget(m_boxList);
}

void LayerDetailView::selectToken(int64_t row) {
  const auto tokens = static_cast<int64_t>(m_detail->plane.coordinates.size() / 2);
  if (row < 0 || row >= tokens) row = -1;
  if (row == m_selected) return;
  m_selected = row;
  m_scatter->markSelected(row);
  if (row >= 0)
    m_context->showContext(*m_detail, row);
  else
    m_context->clearContext();
  emit tokenSelected(row);
}

}  // namespace strata
