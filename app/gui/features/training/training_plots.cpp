#include "training_plots.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QSlider>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "common/error.h"
#include "display_text.h"
#include "plot_export.h"
#include "plot_legend.h"
#include "plot_palette.h"

namespace strata {
namespace {

const QColor kTrainColour(31, 119, 180);
const QColor kEvalColour(255, 127, 14);
const QColor kLrColour(44, 160, 44);
const QColor kThroughputColour(148, 103, 189);
constexpr int kEvalMarker = 7;
constexpr double kMarkerRoom = kEvalMarker / 2.0 + 2;  // pixels, with the marker's outline

QCustomPlot* makePlot(QWidget* parent, const QString& title, const QString& yLabel) {
  auto* plot = new QCustomPlot(parent);
  followPalette(plot);
  plot->setMinimumSize(240, 160);
  plot->setWindowTitle(title);
  plot->plotLayout()->insertRow(0);
  plot->plotLayout()->addElement(
      0, 0, new QCPTextElement(plot, title, QFont(plot->font().family(), -1, QFont::Bold)));
  plot->xAxis->setLabel(TrainingPlots::tr("step"));
  plot->yAxis->setLabel(yLabel);
  plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  // Live plots redraw a few times a second while a run trains: joins drawn the fast way cost
  // nothing visible and keep a replot of thousands of noisy points short.
  plot->setPlottingHint(QCP::phFastPolylines, true);
  return plot;
}

QCPGraph* makeGraph(QCustomPlot* plot, const QString& name, const QPen& pen) {
  QCPGraph* graph = plot->addGraph();
  graph->setName(name);
  graph->setPen(pen);
  return graph;
}

/** Log ticks at 1-2-5 × 10^k, or at every integer mantissa when the range spans less than a
 *  decade (a loss going from 4 to 2 would otherwise show no label at all). */
void setLogTicks(QCPAxis* axis) {
  const QCPRange range = axis->range();
  if (!(range.lower > 0) || !(range.upper > range.lower)) return;
  const bool narrow = std::log10(range.upper / range.lower) < 1;
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  for (int k = static_cast<int>(std::floor(std::log10(range.lower)));
       k <= static_cast<int>(std::ceil(std::log10(range.upper))); ++k)
    for (int mantissa = 1; mantissa <= 9; ++mantissa) {
      if (!narrow && mantissa != 1 && mantissa != 2 && mantissa != 5) continue;
      const double tick = mantissa * std::pow(10.0, k);
      if (tick >= range.lower && tick <= range.upper)
        ticker->addTick(tick, QString::number(tick, 'g', 3));
    }
  ticker->setSubTickCount(0);
  axis->setTicker(ticker);
}

/** Every label in one notation, "5·10⁻⁵" and "1·10⁻⁴" (the axis draws the power): the default
 *  ticker wrote 0.0001 beside 5·10⁻⁵ on one learning-rate axis. */
class ScientificTicker final : public QCPAxisTicker {
 protected:
  QString getTickLabel(double tick, const QLocale& locale, QChar, int) override {
    if (std::abs(tick) < 1e-300) return QStringLiteral("0");
    QString text = locale.toString(tick, 'e', 2);  // "2.50e-05"
    const qsizetype e = text.indexOf(QLatin1Char('e'));
    QString mantissa = text.left(e);
    while (mantissa.contains(QLatin1Char('.')) &&
           (mantissa.endsWith(QLatin1Char('0')) || mantissa.endsWith(QLatin1Char('.'))))
      mantissa.chop(1);
    return mantissa + text.mid(e);
  }
};

void rescale(QCustomPlot* plot) {
  plot->rescaleAxes(true);
  // Room at both ends of the steps for a marker's radius: the last evaluation drawn whole.
  const QCPRange steps = plot->xAxis->range();
  const double width = std::max(plot->axisRect()->width(), 100);
  const double spare = steps.size() * std::max(0.01, kMarkerRoom / width);
  plot->xAxis->setRange(steps.lower - spare, steps.upper + spare);
  QCPAxis* y = plot->yAxis;
  QCPRange range = y->range();
  if (y->scaleType() == QCPAxis::stLogarithmic) {
    range.lower /= 1.1;
    range.upper *= 1.1;
    y->setRange(range);
    setLogTicks(y);
  } else {
    const double pad =
        range.size() > 0 ? range.size() * 0.05 : std::max(1e-12, std::abs(range.center()) * 0.1);
    y->setRange(range.lower - pad, range.upper + pad);
  }
  plot->replot(QCustomPlot::rpQueuedReplot);
}

QVector<double> toQVector(const std::vector<double>& values) {
  return QVector<double>(values.begin(), values.end());
}

void drawEnvelope(QCPGraph* graph, const engine::DecimatedSeries& series) {
  std::vector<double> steps, values;
  series.envelope(steps, values);
  graph->setData(toQVector(steps), toQVector(values), true);
}

}  // namespace

QVector<double> smoothedSeries(const QVector<double>& values, double weight) {
  QVector<double> smoothed;
  smoothed.reserve(values.size());
  double last = 0;
  int counted = 0;
  for (const double value : values) {
    if (!std::isfinite(value)) {
      smoothed << value;
      continue;
    }
    last = last * weight + (1 - weight) * value;
    ++counted;
    const double debias = weight > 0 ? 1 - std::pow(weight, counted) : 1;
    smoothed << last / debias;
  }
  return smoothed;
}

TrainingPlots::TrainingPlots(QWidget* parent)
    : QWidget(parent),
      m_logScale(new QCheckBox(tr("Log scale"), this)),
      m_showObjective(new QCheckBox(tr("Objective"), this)),
      m_slider(new QSlider(Qt::Horizontal, this)),
      m_sliderValue(new QLabel(this)),
      m_export(new QToolButton(this)),
      m_lossPlot(makePlot(this, tr("Loss"), tr("loss"))),
      m_lrPlot(makePlot(this, tr("Learning rate"), tr("lr"))),
      m_throughputPlot(makePlot(this, tr("Throughput"), tr("tokens/s"))) {
  m_logScale->setToolTip(tr("Logarithmic loss axis"));
  connect(m_logScale, &QCheckBox::toggled, this, &TrainingPlots::setLogScale);
  m_showObjective->setToolTip(
      tr("Also draw the whole training objective (\"loss\": the task loss plus terms evaluation "
         "leaves out, such as λ·alignment). It is not comparable with eval."));
  m_showObjective->setVisible(false);  // until a run logs task_loss
  connect(m_showObjective, &QCheckBox::toggled, this, &TrainingPlots::refresh);

  m_slider->setRange(0, 99);
  m_slider->setValue(static_cast<int>(std::lround(m_smoothing * 100)));
  m_slider->setToolTip(
      tr("Smoothing of the train loss: an exponential moving average with this weight, "
         "debiased like TensorBoard's (0 = the logged values)"));
  m_sliderValue->setText(QString::number(m_smoothing, 'f', 2));
  m_sliderValue->setMinimumWidth(
      m_sliderValue->fontMetrics().horizontalAdvance(QStringLiteral("0.00")));
  connect(m_slider, &QSlider::valueChanged, this, [this](int value) {
    m_smoothing = value / 100.0;
    m_sliderValue->setText(QString::number(m_smoothing, 'f', 2));
    redrawSmoothed();
    rescale(m_lossPlot);
  });

  m_export->setText(tr("Export"));
  m_export->setPopupMode(QToolButton::InstantPopup);
  auto* menu = new QMenu(m_export);
  const std::pair<Plot, QString> plots[] = {{LossPlot, QStringLiteral("loss")},
                                            {LearningRatePlot, QStringLiteral("lr")},
                                            {ThroughputPlot, QStringLiteral("throughput")}};
  for (const auto& [which, suffix] : plots) {
    // Not addPlotExportActions: the proposed name follows the run shown.
    QMenu* sub = menu->addMenu(tr("%1 Plot").arg(plot(which)->windowTitle()));
    for (const QString& format : {QStringLiteral("png"), QStringLiteral("pdf")}) {
      sub->addAction(tr("Save as %1…").arg(format.toUpper()), this, [this, which, suffix, format] {
        askToSave(this, tr("Save Plot"), tr("%1 files (*.%2)").arg(format.toUpper(), format),
                  m_exportName + QLatin1Char('-') + suffix + QLatin1Char('.') + format, format,
                  [this, which](const QString& file) { savePlot(which, file); });
      });
    }
  }
  menu->addSeparator();
  menu->addAction(tr("Save Metrics as CSV…"), this, [this] {
    askToSave(this, tr("Save Metrics as CSV"), tr("CSV files (*.csv)"),
              m_exportName + QStringLiteral("-metrics.csv"), QStringLiteral("csv"),
              [this](const QString& file) { saveCsv(file); });
  });
  m_export->setMenu(menu);

  QColor faint = kTrainColour;
  faint.setAlpha(70);
  m_train = makeGraph(m_lossPlot, tr("train (logged)"), QPen(faint, 1));
  m_smoothed = makeGraph(m_lossPlot, tr("train (smoothed)"), QPen(kTrainColour, 2));
  m_eval = makeGraph(m_lossPlot, tr("eval"), QPen(kEvalColour, 2));
  m_eval->setScatterStyle(
      QCPScatterStyle(QCPScatterStyle::ssCircle, kEvalColour, Qt::white, kEvalMarker));
  m_objective = makeGraph(m_lossPlot, tr("train objective (loss, not comparable with eval)"),
                          QPen(kTrainColour, 1, Qt::DashLine));
  m_objective->removeFromLegend();
  // The legend in a row of its own under the title, never over the curves.
  m_lossPlot->axisRect()->insetLayout()->take(m_lossPlot->legend);
  m_lossPlot->axisRect()->insetLayout()->simplify();
  m_lossPlot->plotLayout()->insertRow(1);
  // Inset from the plot's edges, so that the legend's frame is drawn whole (plot_legend.h).
  auto* legendRow = new QCPLayoutGrid;
  m_lossPlot->plotLayout()->addElement(1, 0, legendRow);
  legendRow->addElement(0, 0, m_lossPlot->legend);
  legendRow->setMargins(QMargins(6, 0, 6, 0));
  m_lossPlot->plotLayout()->setRowStretchFactor(1, 0.001);
  m_lossPlot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  // As many entries a row as the plot's width holds, laid out afresh before every replot.
  connect(m_lossPlot, &QCustomPlot::beforeReplot, this, [this] { wrapLegendToWidth(*m_lossPlot); });
  m_lossPlot->legend->setMargins(QMargins(4, 2, 4, 2));
  m_lossPlot->legend->setVisible(true);
  m_lr = makeGraph(m_lrPlot, tr("lr"), QPen(kLrColour, 2));
  m_lrPlot->yAxis->setTicker(QSharedPointer<ScientificTicker>::create());
  m_lrPlot->yAxis->setNumberFormat(QStringLiteral("eb"));  // "b": the power drawn raised
  // Width 1 for the noisy series: a wider pen is stroked as a path, which costs ten times more.
  m_throughput = makeGraph(m_throughputPlot, tr("tokens/s"), QPen(kThroughputColour, 1));

  auto* controls = new QHBoxLayout;
  controls->addWidget(m_logScale);
  controls->addWidget(m_showObjective);
  controls->addSpacing(12);
  controls->addWidget(new QLabel(tr("Smoothing:"), this));
  controls->addWidget(m_slider, 1);
  controls->addWidget(m_sliderValue);
  controls->addSpacing(12);
  controls->addWidget(m_export);

  auto* lower = new QSplitter(Qt::Horizontal, this);
  lower->addWidget(m_lrPlot);
  lower->addWidget(m_throughputPlot);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(m_lossPlot);
  split->addWidget(lower);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 1);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(controls);
  layout->addWidget(split, 1);
}

QCustomPlot* TrainingPlots::plot(Plot which) const {
  switch (which) {
    case LearningRatePlot:
      return m_lrPlot;
    case ThroughputPlot:
      return m_throughputPlot;
    default:
      return m_lossPlot;
  }
}

void TrainingPlots::setRecords(const std::vector<engine::MetricsRecord>& records) {
  m_recordCount = 0;
  m_lastStep = -1;
  for (engine::DecimatedSeries* series :
       {&m_trainLoss, &m_taskLoss, &m_evalLoss, &m_lrSeries, &m_throughputSeries})
    series->clear();
  addToSeries(records);
  refresh();
}

void TrainingPlots::appendRecords(const std::vector<engine::MetricsRecord>& records) {
  if (records.empty()) return;
  addToSeries(records);
  refresh();
}

void TrainingPlots::addToSeries(const std::vector<engine::MetricsRecord>& records) {
  const std::pair<const char*, engine::DecimatedSeries*> series[] = {
      {"loss", &m_trainLoss},
      {engine::kTaskLossMetric, &m_taskLoss},
      {"val_loss", &m_evalLoss},
      {"lr", &m_lrSeries},
      {"tokens_per_s", &m_throughputSeries}};
  for (const engine::MetricsRecord& record : records) {
    for (const auto& [name, points] : series)
      if (const double value = record.value(name); !std::isnan(value))
        points->append(static_cast<double>(record.step), value);
    ++m_recordCount;
    m_lastStep = record.step;
  }
}

void TrainingPlots::redrawSmoothed() {
  // A bucket of `stride` points decays like `stride` single points would, so the curve keeps
  // its shape as the series is decimated.
  std::vector<double> steps, means;
  trainLoss().means(steps, means);
  const double weight = std::pow(m_smoothing, static_cast<double>(trainLoss().stride()));
  m_smoothed->setData(toQVector(steps), smoothedSeries(toQVector(means), weight), true);
}

void TrainingPlots::refresh() {
  // Redrawn whole from at most 2·kMaxBuckets points a series: microseconds next to a replot.
  nameLossGraphs();
  drawEnvelope(m_train, trainLoss());
  drawEnvelope(m_eval, m_evalLoss);
  if (showsTaskLoss() && m_showObjective->isChecked())
    drawEnvelope(m_objective, m_trainLoss);
  else
    m_objective->data()->clear();
  drawEnvelope(m_lr, m_lrSeries);
  drawEnvelope(m_throughput, m_throughputSeries);
  redrawSmoothed();
  for (QCustomPlot* p : {m_lossPlot, m_lrPlot, m_throughputPlot}) rescale(p);
}

const engine::DecimatedSeries& TrainingPlots::trainLoss() const {
  return showsTaskLoss() ? m_taskLoss : m_trainLoss;
}

void TrainingPlots::nameLossGraphs() {
  const bool task = showsTaskLoss();
  m_showObjective->setVisible(task);
  m_train->setName(task ? tr("train task loss (logged)") : tr("train (logged)"));
  m_smoothed->setName(task ? tr("train task loss (smoothed)") : tr("train (smoothed)"));
  m_eval->setName(task ? tr("eval task loss (val_loss)") : tr("eval"));
  m_lossPlot->yAxis->setLabel(task ? tr("task loss") : tr("loss"));
  const bool objective = task && m_showObjective->isChecked();
  if (objective != m_lossPlot->legend->hasItemWithPlottable(m_objective)) {
    if (objective)
      m_objective->addToLegend();
    else
      m_objective->removeFromLegend();
  }
}

void TrainingPlots::setSmoothing(double weight) {
  m_slider->setValue(static_cast<int>(std::lround(std::clamp(weight, 0.0, 0.99) * 100)));
}

void TrainingPlots::setLogScale(bool logarithmic) {
  if (m_logScale->isChecked() != logarithmic) m_logScale->setChecked(logarithmic);  // re-enters
  QCPAxis* y = m_lossPlot->yAxis;
  const auto type = logarithmic ? QCPAxis::stLogarithmic : QCPAxis::stLinear;
  if (y->scaleType() == type) return;
  y->setScaleType(type);
  if (!logarithmic) y->setTicker(QSharedPointer<QCPAxisTicker>::create());
  rescale(m_lossPlot);
}

void TrainingPlots::savePlot(Plot which, const QString& file) {
  strata::savePlot(*plot(which), file);
}

void TrainingPlots::saveCsv(const QString& file) const {
  if (m_metricsFile.isEmpty()) throw Error("there is no run shown to export metrics from");
  engine::writeMetricsCsv(engine::readMetricsLog(toFsPath(m_metricsFile)), toFsPath(file));
}

}  // namespace strata
