#include "alignment_plots.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "chunk_routing_plots.h"
#include "plot_palette.h"

namespace strata {
namespace {

const QColor kLossColour(31, 119, 180);
const QColor kAccuracyColour(255, 127, 14);
// A few dozen hidden states still fit: the legend wraps into a new column after this many.
constexpr int kLegendRows = 12;
// At most this many step labels under the heatmap; the rest of its columns stay unlabelled.
constexpr int kHeatmapStepLabels = 8;

QCPTextElement* addTitle(QCustomPlot* plot, const QString& text) {
  plot->plotLayout()->insertRow(0);
  auto* title = new QCPTextElement(plot, text, QFont(plot->font().family(), -1, QFont::Bold));
  plot->plotLayout()->addElement(0, 0, title);
  return title;
}

void setTitle(QCustomPlot& plot, const QString& text) {
  if (auto* title = qobject_cast<QCPTextElement*>(plot.plotLayout()->element(0, 0)))
    title->setText(text);
}

/** Fits `axis` to `range` with 5 % to spare (a flat series gets a small band around it). */
void pad(QCPAxis* axis, QCPRange range) {
  const double spare =
      range.size() > 0 ? range.size() * 0.05 : std::max(1e-3, std::abs(range.center()) * 0.05);
  axis->setRange(range.lower - spare, range.upper + spare);
}

void rescale(QCustomPlot& plot) {
  plot.rescaleAxes(true);
  pad(plot.yAxis, plot.yAxis->range());
  if (plot.yAxis2->visible()) pad(plot.yAxis2, plot.yAxis2->range());
  plot.replot(QCustomPlot::rpQueuedReplot);
}

void setSeries(QCPGraph* graph, const StepSeries& series) {
  QVector<double> keys, values;
  keys.reserve(static_cast<qsizetype>(series.steps.size()));
  values.reserve(keys.capacity());
  for (size_t i = 0; i < series.steps.size(); ++i) {
    if (std::isnan(series.values[i])) continue;
    keys << static_cast<double>(series.steps[i]);
    values << series.values[i];
  }
  graph->setData(keys, values, true);
}

}  // namespace

QCPColorGradient depthGradient() {
  // Viridis (matplotlib's default sequential map): even steps of lightness, legible in grey.
  QCPColorGradient gradient;
  gradient.setColorStopAt(0.0, QColor(68, 1, 84));
  gradient.setColorStopAt(0.25, QColor(59, 82, 139));
  gradient.setColorStopAt(0.5, QColor(33, 145, 140));
  gradient.setColorStopAt(0.75, QColor(94, 201, 98));
  gradient.setColorStopAt(1.0, QColor(253, 231, 37));
  gradient.setNanHandling(QCPColorGradient::nhTransparent);
  return gradient;
}

QColor depthColour(int layer, int layerCount) {
  const double last = std::max(layerCount - 1, 1);
  return QColor::fromRgb(depthGradient().color(layer, QCPRange(0, last)));
}

QCustomPlot* makeLayerCurvesPlot(QWidget* parent) {
  auto* plot = new QCustomPlot(parent);
  followPalette(plot);
  plot->setMinimumSize(320, 200);
  addTitle(plot, QObject::tr("Mean cosine(student, teacher) per layer"));
  plot->xAxis->setLabel(QObject::tr("step"));
  plot->yAxis->setLabel(QObject::tr("mean cosine"));
  plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  plot->setPlottingHint(QCP::phFastPolylines, true);  // redrawn every second while a run trains
  // The legend beside the axes, not over the curves: one entry per hidden state.
  auto* side = new QCPLayoutGrid;
  plot->plotLayout()->addElement(1, 1, side);
  plot->axisRect()->insetLayout()->take(plot->legend);
  plot->axisRect()->insetLayout()->simplify();
  side->addElement(0, 0, plot->legend);
  side->addElement(1, 0, new QCPLayoutElement(plot));  // takes the height the legend leaves
  side->setRowStretchFactors({0.001, 1});
  side->setMargins(QMargins(0, 6, 6, 6));
  plot->legend->setFillOrder(QCPLayoutGrid::foRowsFirst);
  plot->legend->setWrap(kLegendRows);
  plot->plotLayout()->setColumnStretchFactor(1, 0.001);
  plot->legend->setVisible(false);
  return plot;
}

QCustomPlot* makeCosineMapPlot(QWidget* parent, QCPColorMap*& map) {
  QCustomPlot* plot = makeColorMapPlot(parent, QObject::tr("step"),
                                       QObject::tr("hidden state (0 = embeddings)"), map);
  addTitle(plot, QObject::tr("Mean cosine per layer and step"));
  map->colorScale()->axis()->setLabel(QObject::tr("mean cosine"));
  // Not the thermal map of chunk routing: its white top would look like a cell not logged.
  map->setGradient(depthGradient());
  // One row per hidden state: integer ticks only.
  auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
  ticker->setTickStep(1);
  ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
  plot->yAxis->setTicker(ticker);
  return plot;
}

QCustomPlot* makeLossComparisonPlot(QWidget* parent) {
  auto* plot = new QCustomPlot(parent);
  followPalette(plot);
  plot->setMinimumSize(280, 160);
  addTitle(plot, QObject::tr("Validation loss and masked accuracy"));
  plot->xAxis->setLabel(QObject::tr("step"));
  plot->yAxis->setLabel(QStringLiteral("val_loss"));
  plot->yAxis2->setVisible(true);
  plot->yAxis2->setLabel(QStringLiteral("val_masked_acc"));
  plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  // The legend under the axes: four long entries would cover most of a small plot.
  plot->axisRect()->insetLayout()->take(plot->legend);
  plot->axisRect()->insetLayout()->simplify();
  plot->plotLayout()->addElement(2, 0, plot->legend);
  plot->plotLayout()->setRowStretchFactor(2, 0.001);
  plot->legend->setFillOrder(QCPLayoutGrid::foRowsFirst);
  plot->legend->setVisible(false);
  return plot;
}

QList<QList<QCPGraph*>> drawLayerCurves(QCustomPlot& plot, const QList<AlignmentCurvesRun>& runs,
                                        CosineSource source, const QString& title) {
  plot.clearGraphs();
  setTitle(plot, title);
  int layers = 0;  // shared, so that layer l has one colour in every run
  for (const AlignmentCurvesRun& run : runs)
    layers = std::max(layers, run.table->layerCount(source));
  QList<QList<QCPGraph*>> graphs;
  for (qsizetype r = 0; r < runs.size(); ++r) {
    const AlignmentTable& table = *runs[r].table;
    const std::vector<int64_t>& steps = table.steps(source);
    QList<QCPGraph*>& runGraphs = graphs.emplaceBack();
    for (int l = 0; l < table.layerCount(source); ++l) {
      QVector<double> keys, values;
      for (size_t row = 0; row < steps.size(); ++row)
        if (const double cosine = table.cosine(source, row, l); !std::isnan(cosine)) {
          keys << static_cast<double>(steps[row]);
          values << cosine;
        }
      QCPGraph* graph = plot.addGraph();
      graph->setData(keys, values, true);
      graph->setPen(QPen(depthColour(l, layers), 1.5, runs[r].style));
      if (r == 0) {
        graph->setName(QObject::tr("layer %1").arg(l));
      } else {
        graph->setName(QObject::tr("%1: layer %2").arg(runs[r].label).arg(l));
        graph->removeFromLegend();
      }
      runGraphs << graph;
    }
  }
  plot.legend->setVisible(plot.graphCount() > 0);
  rescale(plot);
  return graphs;
}

void fillCosineMap(QCPColorMap& map, const AlignmentTable& table, CosineSource source,
                   const QString& title) {
  setTitle(*map.parentPlot(), title);
  const std::vector<int64_t>& steps = table.steps(source);
  const int rows = static_cast<int>(steps.size());
  const int layers = table.layerCount(source);
  map.data()->setSize(rows, layers);
  map.data()->setRange(QCPRange(0, std::max(rows - 1, 0)), QCPRange(0, std::max(layers - 1, 0)));
  double low = std::numeric_limits<double>::infinity();
  double high = -low;
  for (int row = 0; row < rows; ++row)
    for (int l = 0; l < layers; ++l) {
      const double cosine = table.cosine(source, static_cast<size_t>(row), l);
      map.data()->setCell(row, l, cosine);
      if (std::isnan(cosine)) continue;
      low = std::min(low, cosine);
      high = std::max(high, cosine);
    }
  if (low > high) {  // nothing logged yet
    low = 0;
    high = 1;
  } else if (low == high) {
    low -= 0.01;
    high += 0.01;
  }
  map.setDataRange(QCPRange(low, high));

  QCustomPlot* plot = map.parentPlot();
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  const int every = std::max(1, (rows + kHeatmapStepLabels - 1) / kHeatmapStepLabels);
  for (int row = 0; row < rows; row += every)
    ticker->addTick(row, QString::number(steps[static_cast<size_t>(row)]));
  plot->xAxis->setTicker(ticker);
  plot->xAxis->setRange(-0.5, std::max(rows, 1) - 0.5);
  plot->yAxis->setRange(-0.5, std::max(layers, 1) - 0.5);
  plot->replot(QCustomPlot::rpQueuedReplot);
}

void drawLossComparison(QCustomPlot& plot, const QList<AlignmentCurvesRun>& runs) {
  plot.clearGraphs();
  for (const AlignmentCurvesRun& run : runs) {
    QCPGraph* loss = plot.addGraph(plot.xAxis, plot.yAxis);
    loss->setName(QObject::tr("%1: val_loss").arg(run.label));
    loss->setPen(QPen(kLossColour, 1.5, run.style));
    loss->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 4));
    setSeries(loss, run.table->validationLoss());
    QCPGraph* accuracy = plot.addGraph(plot.xAxis, plot.yAxis2);
    accuracy->setName(QObject::tr("%1: val_masked_acc").arg(run.label));
    accuracy->setPen(QPen(kAccuracyColour, 1.5, run.style));
    accuracy->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 4));
    setSeries(accuracy, run.table->validationMaskedAccuracy());
  }
  plot.legend->setVisible(plot.graphCount() > 0);
  rescale(plot);
}

}  // namespace strata
