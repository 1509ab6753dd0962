#include "bridge_metrics_plot.h"

#include <qcustomplot.h>

#include <QMenu>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "plot_export.h"
#include "plot_palette.h"

namespace strata {
namespace {

const QColor kCosineColour(31, 119, 180);
const QColor kAgreementColour(44, 160, 44);
const QColor kGapColour(214, 39, 40);

QCPGraph* makeGraph(QCustomPlot* plot, QCPAxis* valueAxis, const QString& name,
                    const QColor& colour) {
  QCPGraph* graph = plot->addGraph(plot->xAxis, valueAxis);
  graph->setName(name);
  graph->setPen(QPen(colour, 2));
  graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, colour, Qt::white, 6));
  return graph;
}

}  // namespace

BridgeMetricsPlot::BridgeMetricsPlot(QWidget* parent)
    : QWidget(parent), m_plot(new QCustomPlot(this)), m_export(new QToolButton(this)) {
  followPalette(m_plot);
  m_plot->setMinimumSize(240, 160);
  m_plot->setWindowTitle(tr("Bridge evaluation"));
  m_plot->plotLayout()->insertRow(0);
  m_plot->plotLayout()->addElement(
      0, 0,
      new QCPTextElement(m_plot, tr("Bridge evaluation"),
                         QFont(m_plot->font().family(), -1, QFont::Bold)));
  m_plot->xAxis->setLabel(tr("step"));
  m_plot->yAxis->setLabel(tr("cosine, agreement"));
  m_plot->yAxis2->setLabel(tr("CE gap (nats)"));
  m_plot->yAxis2->setVisible(true);
  m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  m_cosine = makeGraph(m_plot, m_plot->yAxis, tr("cosine(ĥ, h)"), kCosineColour);
  m_agreement = makeGraph(m_plot, m_plot->yAxis, tr("top-1 agreement"), kAgreementColour);
  m_ceGap = makeGraph(m_plot, m_plot->yAxis2, tr("CE gap (right)"), kGapColour);
  m_plot->legend->setVisible(true);
  m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);

  m_export->setText(tr("Export"));
  m_export->setPopupMode(QToolButton::InstantPopup);
  auto* menu = new QMenu(m_export);
  addPlotExportActions(menu, m_plot, QStringLiteral("bridge-evaluation"));
  m_export->setMenu(menu);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_plot, 1);
  refresh();
}

void BridgeMetricsPlot::setRecords(const std::vector<engine::MetricsRecord>& records) {
  for (QCPGraph* graph : {m_cosine, m_agreement, m_ceGap}) graph->data()->clear();
  appendRecords(records);
  if (records.empty()) refresh();
}

void BridgeMetricsPlot::appendRecords(const std::vector<engine::MetricsRecord>& records) {
  bool added = false;
  const std::pair<QCPGraph*, const char*> series[] = {
      {m_cosine, "val_cosine"}, {m_agreement, "val_top1_agreement"}, {m_ceGap, "val_ce_gap"}};
  for (const engine::MetricsRecord& record : records)
    for (const auto& [graph, name] : series)
      if (const double value = record.value(name); std::isfinite(value)) {
        graph->addData(static_cast<double>(record.step), value);
        added = true;
      }
  if (added) refresh();
}

void BridgeMetricsPlot::refresh() {
  m_plot->xAxis->rescale(true);
  const QCPRange steps = m_plot->xAxis->range();
  if (steps.size() <= 0) m_plot->xAxis->setRange(steps.center() - 1, steps.center() + 1);
  // Cosine and agreement live in [0, 1]; a fixed axis keeps an improving bridge readable.
  m_plot->yAxis->setRange(0, 1.05);
  // The gap from 0 (a bridge as good as the true h) to its largest value.
  double highest = 0, lowest = 0;
  for (auto point = m_ceGap->data()->constBegin(); point != m_ceGap->data()->constEnd(); ++point) {
    highest = std::max(highest, point->value);
    lowest = std::min(lowest, point->value);
  }
  const double pad = std::max(0.05, 0.1 * (highest - lowest));
  m_plot->yAxis2->setRange(lowest < 0 ? lowest - pad : 0, highest + pad);
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace strata
