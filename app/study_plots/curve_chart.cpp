// Series with bands over a shared x axis, as a PNG (see curve_chart.h).

#include "curve_chart.h"

#include <qcustomplot.h>

#include "chart_style.h"

namespace strata::charts {

void writeCurveChart(const CurveChart& chart, const QString& file, int width, int height) {
  QCustomPlot plot;
  plot.resize(width, height);
  addTitle(plot, chart.title);
  plot.legend->setVisible(true);
  for (int i = 0; i < chart.series.size(); ++i) {
    const CurveSeries& s = chart.series[i];
    const QColor colour = paletteColour(i);
    QCPGraph* line = plot.addGraph();
    line->setName(s.name);
    line->setPen(QPen(colour, 2));
    line->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 4));
    line->setData(s.x, s.y);
    if (s.low.size() == s.x.size() && s.high.size() == s.x.size()) {
      // The band: the high edge filled down to the low edge, both without legend entries.
      QCPGraph* low = plot.addGraph();
      low->setPen(Qt::NoPen);
      low->setData(s.x, s.low);
      low->removeFromLegend();
      QCPGraph* high = plot.addGraph();
      high->setPen(Qt::NoPen);
      QColor fill = colour;
      fill.setAlpha(50);
      high->setBrush(fill);
      high->setChannelFillGraph(low);
      high->setData(s.x, s.high);
      high->removeFromLegend();
    }
  }
  plot.xAxis->setLabel(chart.xLabel);
  plot.yAxis->setLabel(chart.yLabel);
  plot.rescaleAxes();
  plot.xAxis->scaleRange(1.05, plot.xAxis->range().center());
  plot.yAxis->scaleRange(1.1, plot.yAxis->range().center());
  savePng(plot, file, width, height);
}

}  // namespace strata::charts
