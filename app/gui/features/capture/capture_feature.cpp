#include "capture_feature.h"

#include <QAction>
#include <QDir>
#include <QFileInfo>

#include "capture_dialog.h"
#include "clean_path.h"
#include "display_text.h"
#include "gui_settings.h"
#include "log_dock.h"
#include "preferences.h"
#include "project_dock.h"
#include "services.h"
#include "workbench.h"

namespace strata {
namespace {

const FeatureRegistration<CaptureFeature> registration("capture", 30);

QString captureDetails(const engine::CaptureConfig& config) {
  return CaptureFeature::tr(
             "Model: %1\nCorpus: %2\nOutput: %3\nTokens: %4, sequence length %5, "
             "skip %6, seed %7, %8%9%10")
      .arg(toQString(config.modelFolder), toQString(config.corpus), toQString(config.output))
      .arg(config.sampling.tokenBudget)
      .arg(config.sampling.sequenceLength)
      .arg(config.sampling.skipFirstPositions)
      .arg(config.sampling.seed)
      .arg(QLatin1String(io::storeDTypeName(config.dtype)),
           config.resume ? CaptureFeature::tr(", resuming") : QString(),
           config.overwrite ? CaptureFeature::tr(", overwriting") : QString());
}

/** "25 layers written", and on a resumed store what it already held: "kept" alone read as a
 *  count of something thrown away. */
QString layersText(const engine::CaptureSummary& summary) {
  QString text = CaptureFeature::tr("%1 layers written").arg(summary.layersWritten);
  if (summary.layersKept > 0)
    text += CaptureFeature::tr(", %1 already complete in the store and kept as they were")
                .arg(summary.layersKept);
  return text;
}

}  // namespace

void CaptureFeature::install(Workbench& workbench) {
  m_workbench = &workbench;
  m_captureAction = new QAction(tr("&Capture…"), this);
  m_captureAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
  m_captureAction->setStatusTip(
      tr("Run the selected model over a corpus and store every layer's hidden states"));
  m_captureAction->setEnabled(false);  // until a model is open
  connect(m_captureAction, &QAction::triggered, this, &CaptureFeature::showCaptureDialog);
  workbench.addMenuAction(MenuSection::Model, m_captureAction);
  workbench.projects().addEntryAction(ProjectCategory::Models, m_captureAction);
  connect(&workbench.events(), &WorkbenchEvents::pathOpened, this,
          [this] { m_captureAction->setEnabled(!m_workbench->currentModel().isEmpty()); });
}

void CaptureFeature::showCaptureDialog() {
  const QString model = m_workbench->currentModel();
  if (model.isEmpty()) return;
  auto* dialog = new CaptureDialog(model, m_workbench->dialogParent());
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  if (m_workbench->persistSettings()) dialog->restoreSettings(guiSettings());
  connect(dialog, &QDialog::accepted, this, [this, dialog] {
    if (m_workbench->persistSettings()) {
      QSettings settings = guiSettings();
      dialog->saveSettings(settings);
    }
    startCapture(dialog->config());
  });
  dialog->open();  // window-modal without a nested event loop, like every dialog here
}

void CaptureFeature::startCapture(const engine::CaptureConfig& dialogConfig) {
  engine::CaptureConfig config = dialogConfig;
  if (m_workbench->persistSettings()) config.device = jobDevice();  // the Preferences' device
  const QString output = cleanAbsolute(toQString(config.output));
  // The dialog proposes a folder of Strata's data folder that may not exist yet.
  QDir().mkpath(QFileInfo(output).absolutePath());
  const QString model = QFileInfo(toQString(config.modelFolder)).fileName();
  m_workbench->log().append(
      MessageLevel::Info,
      tr("Capturing %1 over %2 into %3").arg(model, toQString(config.corpus), output));
  auto summary = std::make_shared<engine::CaptureSummary>();
  // The worker gets its own copy of the config and writes only *summary, which the GUI thread
  // reads after finished() (the job's thread has ended by then).
  JobWork work = [config, summary](JobContext& job) { *summary = engine::runCapture(config, job); };
  m_workbench->startJob(
      tr("Capturing %1").arg(model), std::move(work),
      [this, config, output, summary](JobOutcome outcome, const QString& error) {
        switch (outcome) {
          case JobOutcome::Succeeded:
            m_workbench->log().append(
                MessageLevel::Info,
                tr("Captured %1 tokens (%2 sequences) into %3: %4, %5 s, %6 tokens·layers/s")
                    .arg(countText(summary->tokens), countText(summary->sequences), output,
                         layersText(*summary))
                    .arg(summary->seconds, 0, 'f', 1)
                    .arg(summary->tokensPerSecond, 0, 'f', 0));
            m_workbench->service<OpenService>().openActivationStore(output);
            break;
          case JobOutcome::Cancelled:
            m_workbench->log().append(MessageLevel::Warning,
                                      tr("Capture into %1 was cancelled: the finished layers are "
                                         "kept, and capturing again with Resume completes the "
                                         "store")
                                          .arg(output));
            break;
          case JobOutcome::Failed:
            m_workbench->reportFailure(
                tr("Could not capture into “%1”.").arg(QFileInfo(output).fileName()), error,
                captureDetails(config));
            break;
        }
        emit captureFinished(output, outcome);
      });
}

}  // namespace strata
