#include "plot_legend.h"

#include <qcustomplot.h>

#include <algorithm>

namespace strata {

void placeLegendBesideAxes(QCustomPlot& plot, int row, int rowsPerColumn) {
  auto* side = new QCPLayoutGrid;
  plot.plotLayout()->addElement(row, 1, side);
  plot.axisRect()->insetLayout()->take(plot.legend);
  plot.axisRect()->insetLayout()->simplify();
  side->addElement(0, 0, plot.legend);
  side->addElement(1, 0, new QCPLayoutElement(&plot));  // takes the height the legend leaves
  side->setRowStretchFactors({0.001, 1});
  side->setMargins(QMargins(0, 6, 6, 6));
  plot.plotLayout()->setColumnStretchFactor(1, 0.001);
  plot.legend->setFillOrder(QCPLayoutGrid::foRowsFirst);
  plot.legend->setWrap(rowsPerColumn);
  plot.legend->setVisible(false);
}

void placeLegendBelowAxes(QCustomPlot& plot, int row) {
  auto* below = new QCPLayoutGrid;
  plot.plotLayout()->addElement(row, 0, below);
  plot.plotLayout()->setRowStretchFactor(row, 0.001);
  plot.axisRect()->insetLayout()->take(plot.legend);
  plot.axisRect()->insetLayout()->simplify();
  below->addElement(0, 0, plot.legend);
  below->setMargins(QMargins(6, 0, 6, 6));
  plot.legend->setVisible(false);
}

namespace {

/** The width a legend of `widths` entries needs laid out `perRow` to a row, columns first. */
int legendWidth(const QVector<int>& widths, int perRow, const QCPLegend& legend) {
  QVector<int> columns(perRow, 0);
  for (int i = 0; i < widths.size(); ++i)
    columns[i % perRow] = std::max(columns[i % perRow], widths[i]);
  int total =
      legend.margins().left() + legend.margins().right() + legend.columnSpacing() * (perRow - 1);
  for (int w : columns) total += w;
  return total;
}

}  // namespace

void wrapLegendToWidth(QCustomPlot& plot) {
  QCPLegend& legend = *plot.legend;
  QVector<int> widths;
  // The grid's cells, in fill order; those a wrapped last row leaves empty hold no item.
  for (int i = 0; i < legend.itemCount(); ++i)
    if (const QCPAbstractLegendItem* item = legend.item(i))
      widths << item->minimumOuterSizeHint().width();
  if (widths.isEmpty()) return;
  // What the layouts around the legend leave it: the plot less their margins.
  int available = plot.width();
  for (const QCPLayout* around = legend.layout(); around; around = around->layout())
    available -= around->margins().left() + around->margins().right();
  int perRow = static_cast<int>(widths.size());
  while (perRow > 1 && legendWidth(widths, perRow, legend) > available) --perRow;
  if (perRow != legend.wrap()) {
    legend.setWrap(perRow);
    legend.setFillOrder(QCPLayoutGrid::foColumnsFirst, /*rearrange=*/true);
  }
}

}  // namespace strata
