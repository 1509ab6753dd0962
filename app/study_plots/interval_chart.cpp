// Estimates with intervals per category, as a PNG (see interval_chart.h).

#include "interval_chart.h"

#include <qcustomplot.h>

#include <QFontMetrics>
#include <algorithm>
#include <cmath>
#include <limits>

#include "chart_style.h"

namespace strata::charts {

void writeIntervalChart(const IntervalChart& chart, const QString& file, int width, int height) {
  QCustomPlot plot;
  plot.resize(width, height);
  addTitle(plot, chart.title);
  QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
  double lowest = std::numeric_limits<double>::infinity(), highest = -lowest;
  const auto extend = [&](double v) {
    if (!std::isfinite(v)) return;
    lowest = std::min(lowest, v);
    highest = std::max(highest, v);
  };
  for (int i = 0; i < chart.categories.size(); ++i) {
    const IntervalCategory& c = chart.categories[i];
    const double x = i + 1;
    ticker->addTick(x, c.label);
    const QColor colour = paletteColour(i);
    // The observations, spread a little to the right of the estimate so they do not hide it.
    QCPGraph* dots = plot.addGraph();
    dots->setLineStyle(QCPGraph::lsNone);
    dots->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour.lighter(130), 5));
    for (int k = 0; k < c.observations.size(); ++k) {
      dots->addData(x + 0.12 + 0.05 * k, c.observations[k]);
      extend(c.observations[k]);
    }
    QCPGraph* point = plot.addGraph();
    point->setLineStyle(QCPGraph::lsNone);
    point->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssSquare, colour, colour, 9));
    point->addData(x, c.estimate);
    extend(c.estimate);
    if (std::isfinite(c.low) && std::isfinite(c.high)) {
      auto* bars = new QCPErrorBars(plot.xAxis, plot.yAxis);
      bars->setDataPlottable(point);
      bars->setPen(QPen(colour, 2));
      bars->setWhiskerWidth(12);
      bars->setData(QVector<double>{c.estimate - c.low}, QVector<double>{c.high - c.estimate});
      extend(c.low);
      extend(c.high);
    }
  }
  for (int r = 0; r < chart.references.size(); ++r) {
    const ReferenceLine& ref = chart.references[r];
    auto* line = new QCPItemStraightLine(&plot);
    line->setPen(QPen(QColor(90, 90, 90), 1.5, Qt::DashLine));
    line->point1->setCoords(0, ref.value);
    line->point2->setCoords(1, ref.value);
    auto* text = new QCPItemText(&plot);
    text->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
    text->position->setCoords(0.55, ref.value);
    text->setText(ref.label);
    text->setColor(QColor(90, 90, 90));
    extend(ref.value);
  }
  plot.xAxis->setTicker(ticker);
  const bool slanted = chart.categories.size() > 4;
  plot.xAxis->setTickLabelRotation(slanted ? -30 : 0);  // long labels slant left
  if (slanted && !chart.categories.isEmpty()) {
    // The first label slants left of its tick, past the axis's start: a left margin wide enough
    // for it keeps it inside the picture (QCustomPlot sizes the margin for the y axis only).
    const int text =
        QFontMetrics(plot.xAxis->tickLabelFont()).horizontalAdvance(chart.categories.front().label);
    plot.axisRect()->setMinimumMargins(QMargins(static_cast<int>(text * 0.87) + 12, 0, 0, 0));
  }
  plot.xAxis->setRange(0.4, chart.categories.size() + 0.7);
  plot.yAxis->setLabel(chart.valueLabel);
  if (std::isfinite(lowest)) {
    const double pad = std::max(1e-9, (highest - lowest) * 0.08 + 1e-6 * std::abs(highest));
    plot.yAxis->setRange(lowest - pad, highest + pad);
  }
  savePng(plot, file, width, height);
}

}  // namespace strata::charts
