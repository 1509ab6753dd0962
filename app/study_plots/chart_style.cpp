// The shared look of exported charts (see chart_style.h).

#include "chart_style.h"

#include <qcustomplot.h>

#include <array>
#include <stdexcept>

namespace strata::charts {

QColor paletteColour(int i) {
  static const std::array<QRgb, 10> tableau = {0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2, 0x59a14f,
                                               0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0xbab0ac};
  return QColor(tableau[static_cast<size_t>(i) % tableau.size()]);
}

void addTitle(QCustomPlot& plot, const QString& title) {
  plot.plotLayout()->insertRow(0);
  QFont font = plot.font();
  font.setPointSize(12);
  font.setBold(true);
  plot.plotLayout()->addElement(0, 0, new QCPTextElement(&plot, title, font));
}

void savePng(QCustomPlot& plot, const QString& file, int width, int height) {
  if (!plot.savePng(file, width, height))
    throw std::runtime_error("cannot write " + file.toStdString());
}

}  // namespace strata::charts
