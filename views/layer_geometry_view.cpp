#include "layer_geometry_view.h"

#include <QCheckBox>
#include <QFileInfo>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QScrollArea>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStyle>
#include <QTableView>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "display_text.h"
#include "geometry/score_bootstrap.h"
#include "geometry/store_scoring.h"
#include "geometry/term_cancellation.h"
#include "geometry_plot.h"
#include "geometry_table_model.h"
#include "geometry_table_view.h"
#include "plot_export.h"
#include "score_controls.h"

namespace strata {
namespace {

// The table's share of the side when the window is short: this many rows (or every layer, if
// fewer) stay in view, and the score controls scroll in what is left (issue: 30 to 80 layers at
// the window's default size). With more room the controls are shown whole and the table grows.
constexpr int kTableRowsInView = 10;
// The controls never shrink below this (their first weight rows), whatever the table wants.
constexpr int kControlsMinimumHeight = 90;

QString scoreToolTip(const geometry::LayerScores& scores, std::size_t index, int64_t layer) {
  const bool excluded =
      std::any_of(scores.warnings.begin(), scores.warnings.end(),
                  [&](const geometry::ProxyWarning& w) { return w.layer == layer; });
  if (excluded) return LayerGeometryView::tr("S —  (left out: a proxy is undefined, see ⚠)");
  if (index >= scores.rank.size() || scores.rank[index] == 0)
    return LayerGeometryView::tr("S —  (outside the candidates)");
  const auto candidates =
      std::count_if(scores.rank.begin(), scores.rank.end(), [](int rank) { return rank > 0; });
  return LayerGeometryView::tr("S %1  (rank %2 of %3)")
      .arg(geometryNumberText(scores.score[index]))
      .arg(scores.rank[index])
      .arg(candidates);
}

}  // namespace

LayerGeometryView::LayerGeometryView(const QString& storeFile,
                                     std::shared_ptr<const geometry::GeometryReport> report,
                                     QWidget* parent)
    : QWidget(parent),
      m_storeFile(storeFile),
      m_header(new QLabel(this)),
      m_logScale(new QCheckBox(tr("Log scale"), this)),
      m_export(new QToolButton(this)),
      m_plot(new GeometryPlot(this)),
      m_controls(new ScoreControls(this)),
      m_model(new GeometryTableModel(this)),
      m_sorted(new QSortFilterProxyModel(this)),
      m_table(new GeometryTableView(this)) {
  m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_header->setWordWrap(true);
  m_logScale->setToolTip(tr("Logarithmic y axes for the three proxies (S is a z-score sum)"));
  connect(m_logScale, &QCheckBox::toggled, m_plot, &GeometryPlot::setLogScale);

  const QString baseName = QFileInfo(storeFile).completeBaseName();
  m_export->setText(tr("Export"));
  m_export->setPopupMode(QToolButton::InstantPopup);
  auto* exportMenu = new QMenu(m_export);
  addPlotExportActions(exportMenu, m_plot, baseName + QStringLiteral("-geometry"));
  exportMenu->addAction(tr("Save Table as CSV…"), this, [this, baseName] {
    askToSave(this, tr("Save Table as CSV"), tr("CSV files (*.csv)"),
              baseName + QStringLiteral("-geometry.csv"), QStringLiteral("csv"),
              [this](const QString& file) { saveTable(file); });
  });
  m_export->setMenu(exportMenu);

  auto* top = new QHBoxLayout;
  top->addWidget(m_header, 1);
  top->addWidget(m_logScale);
  top->addWidget(m_export);

  m_sorted->setSourceModel(m_model);
  m_sorted->setSortRole(GeometryTableModel::SortRole);
  m_table->setModel(m_sorted);
  m_table->setSortingEnabled(true);
  m_table->sortByColumn(GeometryTableModel::LayerColumn, Qt::AscendingOrder);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->verticalHeader()->hide();
  m_table->setToolTip(tr("Click a layer to open its spectrum, λ_max histogram and PCA scatter"));
  connect(m_table, &QTableView::clicked, this, &LayerGeometryView::tableClicked);

  auto* scoreBox = new QGroupBox(this);  // titled by the controls' first row, beside Reset
  auto* scoreLayout = new QVBoxLayout(scoreBox);
  scoreLayout->setContentsMargins(6, 2, 6, 2);  // compact: the table below wants the height
  scoreLayout->addWidget(m_controls);
  // The controls over the table, in a splitter the user can drag; fitSideSplit gives the table
  // its rows first. One weight per plugin metric: with many, the controls scroll instead of
  // pushing the window.
  m_side = new QSplitter(Qt::Vertical, this);
  m_controlsArea = new QScrollArea(m_side);
  m_controlsArea->setWidget(scoreBox);
  m_controlsArea->setWidgetResizable(true);
  m_controlsArea->setFrameShape(QFrame::NoFrame);
  m_controlsArea->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  m_controlsArea->setMinimumWidth(scoreBox->minimumSizeHint().width() +
                                  m_controlsArea->verticalScrollBar()->sizeHint().width());
  m_controlsArea->setMinimumHeight(kControlsMinimumHeight);
  m_side->addWidget(m_controlsArea);
  m_side->addWidget(m_table);
  m_side->setStretchFactor(0, 0);
  m_side->setStretchFactor(1, 1);
  m_side->setChildrenCollapsible(false);
  // Once the user has placed the handle, the view leaves it there.
  connect(m_side, &QSplitter::splitterMoved, this, [this] { m_sideSplitChosen = true; });

  // Many metric panels scroll vertically rather than being squeezed below a readable height.
  auto* plotArea = new QScrollArea(this);
  plotArea->setWidget(m_plot);
  plotArea->setWidgetResizable(true);
  plotArea->setFrameShape(QFrame::NoFrame);
  plotArea->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  plotArea->setMinimumWidth(GeometryPlot::kMinimumWidth +
                            plotArea->verticalScrollBar()->sizeHint().width());

  auto* splitter = new QSplitter(Qt::Horizontal, this);
  splitter->addWidget(plotArea);
  splitter->addWidget(m_side);
  // The side keeps the table's main columns in view (GeometryTableView's minimum); the plot
  // takes the rest. Neither can be collapsed away by dragging the handle.
  splitter->setStretchFactor(0, 1);
  splitter->setStretchFactor(1, 0);
  splitter->setChildrenCollapsible(false);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addWidget(splitter, 1);

  connect(m_controls, &ScoreControls::settingsChanged, this, &LayerGeometryView::rescore);
  connect(m_plot, &GeometryPlot::layerHovered, this, &LayerGeometryView::showHoverText);
  connect(m_plot, &GeometryPlot::layerClicked, this, &LayerGeometryView::layerDetailRequested);
  setReport(std::move(report));
}

void LayerGeometryView::setReport(std::shared_ptr<const geometry::GeometryReport> report) {
  m_report = std::move(report);
  m_layers = m_report->layerIndices();
  m_series = geometry::metricSeries(*m_report);
  const geometry::LayerRange previous = m_controls->candidates();
  const bool hadReport = m_model->rowCount() > 0;
  m_model->setReport(m_report);
  m_plot->setReport(m_report);
  updateHeader();

  const int64_t minLayer = m_layers.empty() ? 0 : m_layers.front();
  const int64_t maxLayer = m_layers.empty() ? 0 : m_layers.back();
  const geometry::LayerRange defaults = geometry::defaultCandidates(m_report->numLayers);
  {
    const QSignalBlocker quiet(m_controls);  // one rescore below, whatever changed
    m_controls->setSeries(m_series);
    m_controls->setLayerBounds(minLayer, maxLayer, defaults);
    if (hadReport && previous.first >= minLayer && previous.last <= maxLayer) {
      m_controls->setCandidates(previous);
    } else {
      // A store opens with the weights and candidates it was scored under, so the view's l*
      // is the one `strata-cli score` printed (Reset goes to the defaults).
      if (!m_report->scoredWith.weights.empty())
        m_controls->setWeights(m_report->scoredWith.weights);
      if (m_report->scoredWith.candidates)
        m_controls->setCandidates(*m_report->scoredWith.candidates);
    }
  }
  rescore();
  m_revealBest = true;
  // The new weight rows reach the controls' size hint once their layout requests (posted) are
  // handled: measure after them.
  QMetaObject::invokeMethod(this, &LayerGeometryView::fitSideSplit, Qt::QueuedConnection);
}

void LayerGeometryView::fitSideSplit() {
  // The controls whole across, measured now that their style is polished (the estimate made
  // when the view was built could cut Reset by a pixel).
  QWidget* controls = m_controlsArea->widget();
  m_controlsArea->setMinimumWidth(
      std::max(m_controlsArea->minimumWidth(),
               controls->minimumSizeHint().width() +
                   std::max(m_controlsArea->verticalScrollBar()->sizeHint().width(),
                            style()->pixelMetric(QStyle::PM_ScrollBarExtent))));
  const int total = m_side->height() - m_side->handleWidth();
  if (total <= 0) return;  // not laid out yet: the resize that follows calls again
  if (!m_sideSplitChosen) {
    // The table first: kTableRowsInView rows (every layer if fewer); the controls get the
    // rest, up to their whole height; what is left after both goes to the table.
    const int rows = std::min(m_model->rowCount(), kTableRowsInView);
    const int tableWants = m_table->heightForRows(std::max(rows, 1));
    const int least = std::min(kControlsMinimumHeight, total);
    const int controlsWhole = std::max(m_controlsArea->widget()->sizeHint().height(), least);
    const int controls = std::clamp(total - tableWants, least, controlsWhole);
    m_side->setSizes({controls, std::max(total - controls, 0)});
  }
  // A new report opens with its l* row in view, however deep the model.
  if (m_revealBest && m_table->viewport()->height() > 0) {
    m_revealBest = false;
    const int best = m_model->bestRow();
    if (best >= 0)
      m_table->scrollTo(m_sorted->mapFromSource(m_model->index(best, 0)),
                        QAbstractItemView::PositionAtCenter);
  }
}

void LayerGeometryView::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  // After the layout has given the side its new height.
  QMetaObject::invokeMethod(this, &LayerGeometryView::fitSideSplit, Qt::QueuedConnection);
}

void LayerGeometryView::updateHeader() {
  const geometry::GeometryReport& r = *m_report;
  const geometry::ProxyOptions& o = r.options;
  // The recorded normalisation and interval method (stores from before both read as `trace`
  // and percentile), and a warning when the current weights make two terms of S cancel.
  const QString intervals =
      o.bootstrapResamples == 0 ? tr("no intervals")
      : o.jackknifeBlocks > 0
          ? tr("BCa intervals, jackknife over %1 token blocks").arg(o.jackknifeBlocks)
          : tr("percentile intervals");
  const std::string cancelling =
      geometry::cancellingTermsWarning(o.normalisation, o.monotonicity, m_controls->weights());
  m_header->setText(
      tr("<b>%1</b> — %2, %3 tokens, layers 0–%4<br>"
         "<small>M = %5 anchors, k = %6, %7 directions, %8 bootstrap resamples (%9 %), seed %10"
         " · %11</small><br><small>normalisation: <b>%12</b> · m_mono: %13 · %14</small>%15")
          // Names without content hashes (the paths are in the tooltip): a third line of
          // header took the height the plot needs at the default size.
          .arg(displayName(m_storeFile).toHtmlEscaped(),
               displayName(QString::fromStdString(r.modelId)).toHtmlEscaped(),
               countText(r.numTokens))
          .arg(r.numLayers)
          .arg(o.anchors)
          .arg(o.neighbours)
          .arg(o.directions)
          .arg(o.bootstrapResamples)
          .arg(o.confidence * 100, 0, 'g', 3)
          .arg(static_cast<qulonglong>(o.seed))
          .arg(QString::fromStdString(r.backend).toHtmlEscaped())
          .arg(QLatin1String(geometry::normalisationName(o.normalisation)),
               QLatin1String(geometry::monotonicityModeName(o.monotonicity)), intervals,
               cancelling.empty() ? QString()
                                  : QStringLiteral("<br><small>⚠ %1</small>")
                                        .arg(QString::fromStdString(cancelling).toHtmlEscaped())));
  m_header->setToolTip(
      QStringLiteral("%1\n%2").arg(m_storeFile, QString::fromStdString(r.modelId)));
}

void LayerGeometryView::rescore() {
  geometry::ScoredLayers scored =
      geometry::scoreSeries(m_layers, m_series, m_report->options, m_report->numLayers,
                            {m_controls->weights(), m_controls->candidates()});
  m_scores = std::move(scored.scores);
  m_model->setScores(m_scores);
  m_model->setScoreBootstrap(std::move(scored.bootstrap));
  updateHeader();  // the cancelling-terms warning depends on the weights
  m_plot->setScores(m_scores, m_controls->candidates());
  emit scoresChanged();
}

int64_t LayerGeometryView::bestLayer() const {
  return m_scores.bestIndex >= 0 ? m_layers[static_cast<std::size_t>(m_scores.bestIndex)] : -1;
}

QString LayerGeometryView::toolTipText(int64_t layer) const {
  const auto it = std::find(m_layers.begin(), m_layers.end(), layer);
  if (it == m_layers.end()) return {};
  const auto index = static_cast<std::size_t>(it - m_layers.begin());
  QStringList lines;
  lines << (layer == bestLayer() ? tr("Layer %1 — l*").arg(layer) : tr("Layer %1").arg(layer));
  for (const geometry::MetricSeries& series : m_series)
    lines << QStringLiteral("%1 %2").arg(
        QString::fromStdString(series.info.name),
        series.intervals.empty()
            ? geometryNumberText(series.values[index])
            : proxyIntervalText(series.values[index], series.intervals[index]));
  lines << scoreToolTip(m_scores, index, layer);
  // Undefined proxies and exclusions from S, with their reasons (docs/geometry.md).
  const QString warnings = m_model->warningText(m_model->rowOf(layer));
  if (!warnings.isEmpty()) lines << warnings;
  return lines.join(QLatin1Char('\n'));
}

void LayerGeometryView::showHoverText(qint64 layer, const QPoint& globalPosition) {
  if (layer < 0) {  // off the layers: an axis title says what its panel shows
    m_hovered = -1;
    const QString title = m_plot->titleToolTip(m_plot->mapFromGlobal(globalPosition));
    if (title.isEmpty())
      QToolTip::hideText();
    else
      QToolTip::showText(globalPosition, title, m_plot);
    return;
  }
  if (layer == m_hovered && QToolTip::isVisible()) return;
  m_hovered = layer;
  QToolTip::showText(globalPosition, toolTipText(layer), m_plot);
}

void LayerGeometryView::tableClicked(const QModelIndex& index) {
  const int64_t layer = m_model->layerAt(m_sorted->mapToSource(index).row());
  if (layer >= 0) emit layerDetailRequested(layer);
}

void LayerGeometryView::savePlot(const QString& file) { strata::savePlot(*m_plot, file); }

void LayerGeometryView::saveTable(const QString& file) const { saveTextFile(file, m_model->csv()); }

}  // namespace strata
