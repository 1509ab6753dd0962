#include "titled_plot.h"

#include <qcustomplot.h>

#include "plot_palette.h"

namespace strata {

QCustomPlot* makeTitledPlot(QWidget* parent, const QString& title) {
  auto* plot = new QCustomPlot(parent);
  followPalette(plot);
  plot->setMinimumSize(260, 200);
  plot->setWindowTitle(title);
  plot->plotLayout()->insertRow(0);
  auto* heading = new QCPTextElement(plot, title, QFont(plot->font().family(), -1, QFont::Bold));
  plot->plotLayout()->addElement(0, 0, heading);
  return plot;
}

}  // namespace strata
