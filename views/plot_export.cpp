#include "plot_export.h"

#include <qcustomplot.h>

#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QSaveFile>

#include "common/error.h"
#include "display_text.h"
#include "error_dialog.h"

namespace strata {
namespace {

constexpr int kDefaultWidth = 1000;
constexpr int kDefaultHeight = 700;

}  // namespace

PlotFormat plotFormatFor(const QString& file) {
  const QString suffix = QFileInfo(file).suffix().toLower();
  if (suffix == QLatin1String("png")) return PlotFormat::Png;
  if (suffix == QLatin1String("pdf")) return PlotFormat::Pdf;
  throw Error(file.toStdString() + ": unknown plot format \"" + suffix.toStdString() +
              "\" (expected .png or .pdf)");
}

void savePlot(QCustomPlot& plot, const QString& file) {
  const PlotFormat format = plotFormatFor(file);
  // A plot that is not on screen (a tab never shown, a test's) has no meaningful size of its
  // own: render it at a readable default instead of its minimum or a thumbnail.
  const bool laidOut = plot.isVisible() && plot.width() >= 200 && plot.height() >= 150;
  const int width = laidOut ? plot.width() : kDefaultWidth;
  const int height = laidOut ? plot.height() : kDefaultHeight;
  const bool ok = format == PlotFormat::Png
                      ? plot.savePng(file, width, height, 2.0)
                      : plot.savePdf(file, width, height, QCP::epNoCosmetic,
                                     QStringLiteral("Strata"), plot.windowTitle());
  if (!ok)
    throw IoError(toFsPath(file), format == PlotFormat::Png ? "could not write the PNG image"
                                                            : "could not write the PDF document");
}

void saveTextFile(const QString& file, const QString& text) {
  QSaveFile out(file);
  const QByteArray bytes = text.toUtf8();
  if (!out.open(QIODevice::WriteOnly) || out.write(bytes) != bytes.size() || !out.commit())
    throw IoError(toFsPath(file), out.errorString().toStdString());
}

void askToSave(QWidget* parent, const QString& title, const QString& filter,
               const QString& suggestedName, const QString& suffix,
               std::function<void(const QString&)> save) {
  auto* dialog = new QFileDialog(parent, title, suggestedName, filter);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->setAcceptMode(QFileDialog::AcceptSave);
  dialog->setDefaultSuffix(suffix);
  QObject::connect(
      dialog, &QFileDialog::fileSelected, parent,
      [parent, title, save = std::move(save)](const QString& file) {
        try {
          save(file);
        } catch (const std::exception& error) {
          ErrorReport report;
          report.summary = QObject::tr("Could not save “%1”.").arg(QFileInfo(file).fileName());
          report.error = QString::fromStdString(error.what());
          report.details = QObject::tr("%1\nFile: %2\nError: %3").arg(title, file, report.error);
          showErrorDialog(parent, report);
        }
      });
  dialog->open();
}

void addPlotExportActions(QMenu* menu, QCustomPlot* plot, const QString& suggestedName) {
  menu->addAction(QObject::tr("Save Plot as PNG…"), plot, [plot, suggestedName] {
    askToSave(plot, QObject::tr("Save Plot as PNG"), QObject::tr("PNG images (*.png)"),
              suggestedName + QStringLiteral(".png"), QStringLiteral("png"),
              [plot](const QString& file) { savePlot(*plot, file); });
  });
  menu->addAction(QObject::tr("Save Plot as PDF…"), plot, [plot, suggestedName] {
    askToSave(plot, QObject::tr("Save Plot as PDF"), QObject::tr("PDF documents (*.pdf)"),
              suggestedName + QStringLiteral(".pdf"), QStringLiteral("pdf"),
              [plot](const QString& file) { savePlot(*plot, file); });
  });
}

}  // namespace strata
