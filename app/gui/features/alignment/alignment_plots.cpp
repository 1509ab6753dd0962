#include "alignment_plots.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "chunk_routing_plots.h"
#include "layer_geometry_view_ticks.h"
#include "plot_legend.h"
#include "plot_palette.h"

namespace strata {
namespace {

const QColor kLossColour(31, 119, 180);
const QColor kAccuracyColour(255, 127, 14);
// A few dozen hidden states still fit: the legend wraps into a new column after this many.
constexpr int kLegendRows = 12;
// The curves plot's title, split where it may break (a QStringList property of the plot).
constexpr char kTitleParts[] = "strataTitleParts";
constexpr char kTitleSeparator[] = "strataTitleSeparator";  // between parts on one line
// The loss plot's legend columns when they fit (an int property of the plot).
constexpr char kLegendColumns[] = "strataLegendColumns";
// At most this many step labels under the heatmap; the rest of its columns stay unlabelled.
constexpr int kHeatmapStepLabels = 8;

void setTitle(QCustomPlot& plot, const QString& text) {
  if (auto* title = qobject_cast<QCPTextElement*>(plot.plotLayout()->element(0, 0)))
    title->setText(text);
}

/** Sets the title's parts (kTitleParts); each replot lays them out to fit (fitTitle). */
void setTitle(QCustomPlot& plot, const QStringList& parts) {
  plot.setProperty(kTitleParts, parts);
  setTitle(plot, parts.join(QLatin1Char('\n')));  // narrowest, until the next replot fits it
}

/**
 * Sets the title from `parts` on as few lines as fit `room` pixels: all on one line, else the
 * first on its own and the rest on a second, else one part a line (elided where still too
 * long). A title wider than its plot
 * sets the layout's least width, and QCustomPlot then squeezes every column: the legend was cut
 * to "layer ·".
 */
void fitTitle(QCPTextElement& title, const QStringList& parts, int room,
              const QString& separator = QStringLiteral(" · ")) {
  if (parts.isEmpty()) return;
  const QFontMetrics metrics(title.font());
  const auto width = [&](const QString& text) {
    return metrics.boundingRect(QRect(), Qt::TextDontClip, text).width();
  };
  const QString oneLine = parts.join(separator);
  const QString twoLines = parts.first() + QLatin1Char('\n') + parts.mid(1).join(separator);
  if (width(oneLine) <= room) return title.setText(oneLine);
  if (width(twoLines) <= room) return title.setText(twoLines);
  // One part a line, and a part still too long elided in the middle (a run's date and λ stay).
  QStringList lines;
  for (const QString& part : parts) lines << metrics.elidedText(part, Qt::ElideMiddle, room);
  title.setText(lines.join(QLatin1Char('\n')));
}

/** The width the title (over the first column) has: the plot's less the other columns'. */
int titleRoom(QCustomPlot& plot, const QCPTextElement& title) {
  QCPLayoutGrid* grid = plot.plotLayout();
  int room = plot.width() - grid->margins().left() - grid->margins().right() -
             title.margins().left() - title.margins().right();
  for (int column = 1; column < grid->columnCount(); ++column) {
    int widest = 0;  // as laid out last, or at least its minimum
    for (int row = 0; row < grid->rowCount(); ++row)
      if (QCPLayoutElement* element =
              grid->hasElement(row, column) ? grid->element(row, column) : nullptr)
        widest = std::max(
            {widest, element->outerRect().width(), element->minimumOuterSizeHint().width()});
    room -= widest + grid->columnSpacing();
  }
  return room;
}

/** The loss legend in kLegendColumns columns (one a run) when they fit the plot, else one. */
void fitLegendColumns(QCustomPlot& plot) {
  QCPLegend* legend = plot.legend;
  const int items = legend->itemCount();
  if (items == 0) return;
  int columns = std::max(plot.property(kLegendColumns).toInt(), 1);
  int widest = 0;
  for (int i = 0; i < items; ++i)
    widest = std::max(widest, legend->item(i)->minimumOuterSizeHint().width());
  const int need = columns * widest + (columns - 1) * legend->columnSpacing() +
                   legend->margins().left() + legend->margins().right();
  const QMargins inset = legend->layout() ? legend->layout()->margins() : QMargins();  // framed
  if (need > plot.width() - plot.plotLayout()->margins().left() -
                 plot.plotLayout()->margins().right() - inset.left() - inset.right())
    columns = 1;
  const int rows = (items + columns - 1) / columns;
  if (legend->wrap() == rows && legend->columnCount() == columns) return;
  legend->setWrap(rows);
  legend->setFillOrder(QCPLayoutGrid::foRowsFirst, true);  // re-arranges the entries
}

QCPTextElement* addTitle(QCustomPlot* plot, const QString& text) {
  plot->plotLayout()->insertRow(0);
  auto* title = new QCPTextElement(plot, text, QFont(plot->font().family(), -1, QFont::Bold));
  plot->plotLayout()->addElement(0, 0, title);
  QObject::connect(plot, &QCustomPlot::beforeReplot, title, [plot, title] {
    const QVariant separator = plot->property(kTitleSeparator);
    fitTitle(*title, plot->property(kTitleParts).toStringList(), titleRoom(*plot, *title),
             separator.isValid() ? separator.toString() : QStringLiteral(" · "));
  });
  return title;
}

/** Fits `axis` to `range` with 5 % to spare (a flat series gets a small band around it). */
void pad(QCPAxis* axis, QCPRange range) {
  const double spare =
      range.size() > 0 ? range.size() * 0.05 : std::max(1e-3, std::abs(range.center()) * 0.05);
  axis->setRange(range.lower - spare, range.upper + spare);
}

/** The values of the graphs drawn against `axis`; false when none has any. */
bool plottedValues(const QCPAxis* axis, QCPRange& range) {
  bool any = false;
  for (QCPGraph* graph : axis->graphs()) {
    bool found = false;
    const QCPRange values = graph->getValueRange(found);
    if (!found) continue;
    if (any)
      range.expand(values);
    else
      range = values;
    any = true;
  }
  return any;
}

void rescale(QCustomPlot& plot) {
  plot.rescaleAxes(true);
  // Padded from the values themselves: rescaleAxes widens a flat series by the axis's previous
  // span (±2.5 around a constant accuracy).
  for (QCPAxis* axis : {plot.yAxis, plot.yAxis2}) {
    QCPRange values;
    if (axis->visible() && plottedValues(axis, values)) pad(axis, values);
  }
  plot.replot(QCustomPlot::rpQueuedReplot);
}

/** A fraction's axis (accuracy): at least a tenth wide, and never beyond [0, 1] by more than a
 *  little room for the markers at its ends. */
void fitFraction(QCPAxis* axis) {
  constexpr double kRoom = 0.02, kNarrowest = 0.1;
  double lower = axis->range().lower, upper = axis->range().upper;
  if (upper - lower < kNarrowest) {
    const double centre = (lower + upper) / 2;
    lower = centre - kNarrowest / 2;
    upper = centre + kNarrowest / 2;
  }
  if (lower < -kRoom) {
    upper = std::min(upper + (-kRoom - lower), 1 + kRoom);
    lower = -kRoom;
  }
  if (upper > 1 + kRoom) {
    lower = std::max(lower - (upper - 1 - kRoom), -kRoom);
    upper = 1 + kRoom;
  }
  axis->setRange(lower, upper);
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
  // The legend beside the axes (row 1, under the title), not over the curves: one entry per
  // hidden state.
  placeLegendBesideAxes(*plot, 1, kLegendRows);
  return plot;
}

QCustomPlot* makeCosineMapPlot(QWidget* parent, QCPColorMap*& map) {
  QCustomPlot* plot = makeColorMapPlot(parent, QObject::tr("step"),
                                       QObject::tr("hidden state (0 = embeddings)"), map);
  addTitle(plot, QObject::tr("Mean cosine per layer and step"));
  // A minimum of its own: QCustomPlot's hint is its layout's, as wide as the longest title.
  plot->setMinimumSize(320, 160);
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
  plot->setMinimumSize(280, 200);
  addTitle(plot, QObject::tr("Validation loss and masked accuracy"));
  plot->setProperty(kTitleSeparator, QStringLiteral(" "));
  plot->setProperty(
      kTitleParts, QStringList{QObject::tr("Validation loss"), QObject::tr("and masked accuracy")});
  plot->xAxis->setLabel(QObject::tr("step"));
  plot->yAxis->setLabel(QStringLiteral("val_loss"));
  plot->yAxis2->setVisible(true);
  plot->yAxis2->setLabel(QStringLiteral("val_masked_acc"));
  plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  // As many value labels as the axes' height holds (that of the last layout): a short plot
  // printed five labels on 50 pixels.
  for (QCPAxis* axis : {plot->yAxis, plot->yAxis2})
    axis->setTicker(QSharedPointer<ValueTicker>::create());
  QObject::connect(plot, &QCustomPlot::beforeReplot, plot, [plot] {
    fitLegendColumns(*plot);
    for (QCPAxis* axis : {plot->yAxis, plot->yAxis2})
      if (const auto ticker = axis->ticker().dynamicCast<ValueTicker>())
        ticker->setRoom(plot->axisRect()->height(), QFontMetrics(axis->tickLabelFont()).height());
  });
  // The legend under the axes: four long entries would cover most of a small plot.
  placeLegendBelowAxes(*plot, 2);
  plot->legend->setFillOrder(QCPLayoutGrid::foRowsFirst);
  return plot;
}

QList<QList<QCPGraph*>> drawLayerCurves(QCustomPlot& plot, const QList<AlignmentCurvesRun>& runs,
                                        CosineSource source, const QStringList& title) {
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
                   const QStringList& title) {
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
  // Short names when the runs' λ tell them apart: two runs' entries then fit side by side.
  QList<double> lambdas;
  for (const AlignmentCurvesRun& run : runs)
    if (!std::isnan(run.lambda) && !lambdas.contains(run.lambda)) lambdas << run.lambda;
  const bool byLambda = lambdas.size() == runs.size();
  // A column per run when the names are short, or one column (fitLegendColumns).
  plot.setProperty(kLegendColumns, byLambda ? static_cast<int>(runs.size()) : 1);
  plot.legend->setWrap(byLambda ? 2 : 2 * static_cast<int>(runs.size()));
  for (const AlignmentCurvesRun& run : runs) {
    const QString tag = byLambda ? QStringLiteral("λ = %1").arg(run.lambda) : run.label;
    QCPGraph* loss = plot.addGraph(plot.xAxis, plot.yAxis);
    loss->setName(QObject::tr("%1: val_loss").arg(tag));
    loss->setPen(QPen(kLossColour, 1.5, run.style));
    loss->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 4));
    setSeries(loss, run.table->validationLoss());
    QCPGraph* accuracy = plot.addGraph(plot.xAxis, plot.yAxis2);
    accuracy->setName(QObject::tr("%1: val_masked_acc").arg(tag));
    accuracy->setPen(QPen(kAccuracyColour, 1.5, run.style));
    accuracy->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 4));
    setSeries(accuracy, run.table->validationMaskedAccuracy());
  }
  plot.legend->setVisible(plot.graphCount() > 0);
  rescale(plot);
  fitFraction(plot.yAxis2);
}

}  // namespace strata
