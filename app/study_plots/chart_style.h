#pragma once
// The look every exported chart shares: a title row, readable fonts, a qualitative palette (the
// Tableau 10 colours, distinguishable in print), and saving as PNG. GUI thread only.

#include <QColor>
#include <QString>

class QCustomPlot;

namespace strata::charts {

/** The i-th colour of the palette (it repeats after 10). */
QColor paletteColour(int i);

/** A title row above the axis rect. */
void addTitle(QCustomPlot& plot, const QString& title);

/** Writes the plot as a PNG of width × height pixels; throws std::runtime_error naming the file. */
void savePng(QCustomPlot& plot, const QString& file, int width, int height);

}  // namespace strata::charts
