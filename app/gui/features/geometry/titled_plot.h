#pragma once
// The layer detail's plots: a QCustomPlot that follows the palette, with a bold title above its
// axes (row 0 of its layout) and a minimum size at which it still reads. GUI thread only.

#include <QString>

class QCustomPlot;
class QWidget;

namespace strata {

/** A new plot owned by `parent`, titled `title` (also its window title, which exports use). */
QCustomPlot* makeTitledPlot(QWidget* parent, const QString& title);

}  // namespace strata
