#include "plot_legend.h"

#include <qcustomplot.h>

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

}  // namespace strata
