#pragma once
// Saving what the views show: a QCustomPlot as PNG or PDF, text (CSV) through QSaveFile, and
// the "Export" menu that asks for a file name with a non-modal file dialog (no nested event
// loop) and reports failures in the error dialog. The saving functions work without any dialog,
// so tests call them directly. GUI thread only.

#include <QString>
#include <functional>

class QCustomPlot;
class QMenu;
class QWidget;

namespace strata {

enum class PlotFormat { Png, Pdf };

/** ".png" → Png, ".pdf" → Pdf (case-insensitive); throws strata::Error for anything else. */
PlotFormat plotFormatFor(const QString& file);

/**
 * Renders `plot` into `file` (format from the suffix) at the plot's on-screen size (PNG at
 * twice the pixel density), or at 1000×700 when it is not on screen. Throws strata::IoError naming
 * the file when QCustomPlot cannot write it.
 */
void savePlot(QCustomPlot& plot, const QString& file);

/** Writes `text` as UTF-8, atomically (QSaveFile). Throws strata::IoError naming the file. */
void saveTextFile(const QString& file, const QString& text);

/**
 * Shows a save dialog (window-modal via open()) titled `title` with `filter` (e.g. "PNG
 * images (*.png)"), proposing `suggestedName` with `suffix` appended when the user types none.
 * The chosen file is handed to `save`; an exception from it becomes an error dialog.
 */
void askToSave(QWidget* parent, const QString& title, const QString& filter,
               const QString& suggestedName, const QString& suffix,
               std::function<void(const QString&)> save);

/** Adds "Save Plot as PNG…" and "Save Plot as PDF…" for `plot` to `menu`. */
void addPlotExportActions(QMenu* menu, QCustomPlot* plot, const QString& suggestedName);

}  // namespace strata
