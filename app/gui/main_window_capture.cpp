// MainWindow, Capture…: the dialog fills a CaptureConfig, core's runCapture runs it in a
// background job (progress and Cancel in the status bar), and the finished store is opened
// like any other so it appears under "Activation stores".

#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QStatusBar>
#include <QTabWidget>

#include "capture_dialog.h"
#include "clean_path.h"
#include "common/build_info.h"
#include "display_text.h"
#include "gui_settings.h"
#include "log_dock.h"
#include "main_window.h"
#include "preferences.h"

namespace strata {
namespace {

QString captureDetails(const CaptureConfig& config) {
  return MainWindow::tr(
             "Model: %1\nCorpus: %2\nOutput: %3\nTokens: %4, sequence length %5, "
             "skip %6, seed %7, %8%9%10")
      .arg(toQString(config.modelFolder), toQString(config.corpus), toQString(config.output))
      .arg(config.sampling.tokenBudget)
      .arg(config.sampling.sequenceLength)
      .arg(config.sampling.skipFirstPositions)
      .arg(config.sampling.seed)
      .arg(QLatin1String(storeDTypeName(config.dtype)),
           config.resume ? MainWindow::tr(", resuming") : QString(),
           config.overwrite ? MainWindow::tr(", overwriting") : QString());
}

}  // namespace

void MainWindow::updateActions() {
  m_captureAction->setEnabled(!m_models.isEmpty());
  if (m_verifyAction) m_verifyAction->setEnabled(!m_models.isEmpty());
}

QString MainWindow::currentModel() const {
  const QString selected = m_projectDock->selectedEntry(ProjectCategory::Models);
  if (!selected.isEmpty()) return selected;
  if (QWidget* tab = m_tabs->currentWidget()) {
    const QString path = tab->property("strataPath").toString();
    if (m_models.contains(path)) return path;
  }
  const QStringList models = m_projectDock->entries(ProjectCategory::Models);
  return models.isEmpty() ? QString() : models.last();
}

void MainWindow::showCaptureDialog() {
  const QString model = currentModel();
  if (model.isEmpty()) return;
  auto* dialog = new CaptureDialog(model, this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  if (m_options.persistSettings) dialog->restoreSettings(guiSettings());
  connect(dialog, &QDialog::accepted, this, [this, dialog] {
    if (m_options.persistSettings) {
      QSettings settings = guiSettings();
      dialog->saveSettings(settings);
    }
    startCapture(dialog->config());
  });
  dialog->open();  // window-modal without a nested event loop, like every dialog here
}

void MainWindow::startCapture(const CaptureConfig& dialogConfig) {
  CaptureConfig config = dialogConfig;
  if (m_options.persistSettings) config.device = jobDevice();  // the Preferences' device
  const QString output = cleanAbsolute(toQString(config.output));
  const QString model = QFileInfo(toQString(config.modelFolder)).fileName();
  m_logDock->append(
      MessageLevel::Info,
      tr("Capturing %1 over %2 into %3").arg(model, toQString(config.corpus), output));
  auto summary = std::make_shared<CaptureSummary>();
  // The worker gets its own copy of the config and writes only *summary, which the GUI thread
  // reads after finished() (the job's thread has ended by then).
  JobWork work = [config, summary](JobContext& job) { *summary = runCapture(config, job); };
  startJob(tr("Capturing %1").arg(model), std::move(work),
           [this, config, output, summary](JobOutcome outcome, const QString& error) {
             switch (outcome) {
               case JobOutcome::Succeeded:
                 m_logDock->append(
                     MessageLevel::Info,
                     tr("Captured %1 tokens (%2 sequences) into %3: %4 layers written, %5 kept, "
                        "%6 s, %7 tokens·layers/s")
                         .arg(countText(summary->tokens), countText(summary->sequences), output)
                         .arg(summary->layersWritten)
                         .arg(summary->layersKept)
                         .arg(summary->seconds, 0, 'f', 1)
                         .arg(summary->tokensPerSecond, 0, 'f', 0));
                 openActivationStore(output);
                 break;
               case JobOutcome::Cancelled:
                 m_logDock->append(MessageLevel::Warning,
                                   tr("Capture into %1 was cancelled: the finished layers are "
                                      "kept, and capturing again with Resume completes the store")
                                       .arg(output));
                 break;
               case JobOutcome::Failed: {
                 ErrorReport report;
                 report.summary =
                     tr("Could not capture into “%1”.").arg(QFileInfo(output).fileName());
                 report.error = error;
                 report.details =
                     tr("%1\nError: %2\nStrata %3")
                         .arg(captureDetails(config), error, QLatin1String(build::kVersion));
                 reportError(report);
                 break;
               }
             }
             emit captureFinished(output, outcome);
           });
}

}  // namespace strata
