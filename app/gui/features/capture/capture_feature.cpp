#include "capture_feature.h"

#include <QAction>
#include <QDir>
#include <QFileInfo>

#include "capture_dialog.h"
#include "clean_path.h"
#include "display_text.h"
#include "engine/device_info.h"
#include "engine/progress_share.h"
#include "gui_settings.h"
#include "log_dock.h"
#include "preferences.h"
#include "project_dock.h"
#include "services.h"
#include "workbench.h"

namespace strata {
namespace {

const FeatureRegistration<CaptureFeature> registration("capture", 30);
/** The Model menu, by id: the features that act on an open model share it. */
const QString kModelMenu = QStringLiteral("model");

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

/** "Captured 100 tokens (7 sequences) into …: 3 layers written, 0.4 s, 1,234 tokens·layers/s" */
QString capturedText(const engine::CaptureSummary& summary, const QString& output) {
  return CaptureFeature::tr(
             "Captured %1 tokens (%2 sequences) into %3: %4, %5 s, %6 tokens·layers/s")
      .arg(countText(summary.tokens), countText(summary.sequences), output, layersText(summary))
      .arg(summary.seconds, 0, 'f', 1)
      .arg(summary.tokensPerSecond, 0, 'f', 0);
}

/** The share of a capture-then-score job's progress bar the capture takes, as the default
 *  model's job (engine/cached_geometry.cpp) gives it. */
constexpr double kCaptureShare = 0.7;

}  // namespace

void CaptureFeature::install(Workbench& workbench) {
  m_workbench = &workbench;
  m_recentCorpora = RecentFiles(workbench.persistSettings(), 8, QStringLiteral("recent/corpora"));
  m_captureAction = new QAction(tr("&Capture…"), this);
  m_captureAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
  m_captureAction->setStatusTip(
      tr("Run the selected model over a corpus and store every layer's hidden states"));
  m_captureAction->setEnabled(false);  // until a model is open
  connect(m_captureAction, &QAction::triggered, this, &CaptureFeature::showCaptureDialog);
  workbench.declareMenu(kModelMenu, tr("&Model"));
  workbench.addMenuAction(kModelMenu, m_captureAction);
  workbench.projects().addEntryAction(ProjectCategory::Models, m_captureAction);
  connect(&workbench.events(), &WorkbenchEvents::pathOpened, this,
          [this] { m_captureAction->setEnabled(!m_workbench->currentModel().isEmpty()); });
}

void CaptureFeature::showCaptureDialog() {
  const QString model = m_workbench->currentModel();
  if (!model.isEmpty()) offerCapture(model, {});
}

void CaptureFeature::offerCapture(const QString& model, const AfterCapture& after) {
  auto* dialog = new CaptureDialog(model, m_workbench->dialogParent());
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->setCorpusChoices(m_recentCorpora.paths(), CaptureDialog::builtInCorpora());
  if (m_workbench->persistSettings()) dialog->restoreSettings(guiSettings());
  dialog->proposeCorpus();
  // Planned where the job will run: the Preferences' device (auto: CUDA when usable).
  const std::string device = m_workbench->persistSettings() ? jobDevice() : std::string("auto");
  dialog->setModel(m_workbench->model(QDir::cleanPath(model)),
                   device == "cuda" || (device == "auto" && engine::currentComputeDevice().cuda));
  if (after.work) dialog->setFollowUp(after.description, after.scoresLayers);
  connect(dialog, &QDialog::accepted, this, [this, dialog, after] {
    if (m_workbench->persistSettings()) {
      QSettings settings = guiSettings();
      dialog->saveSettings(settings);
    }
    startCapture(dialog->config(), after);
  });
  dialog->open();  // window-modal without a nested event loop, like every dialog here
}

void CaptureFeature::startCapture(const engine::CaptureConfig& dialogConfig,
                                  const AfterCapture& after) {
  engine::CaptureConfig config = dialogConfig;
  if (m_workbench->persistSettings()) config.device = jobDevice();  // the Preferences' device
  m_recentCorpora.add(cleanAbsolute(toQString(config.corpus)));
  const QString output = cleanAbsolute(toQString(config.output));
  // The dialog proposes a folder of Strata's data folder that may not exist yet.
  QDir().mkpath(QFileInfo(output).absolutePath());
  const QString model = QFileInfo(toQString(config.modelFolder)).fileName();
  m_workbench->log().append(
      MessageLevel::Info,
      tr("Capturing %1 over %2 into %3").arg(model, toQString(config.corpus), output));
  if (after.work)
    m_workbench->log().append(MessageLevel::Info, tr("Then: %1").arg(after.description));
  auto summary = std::make_shared<engine::CaptureSummary>();
  // The worker gets its own copy of the config and writes only *summary, which the GUI thread
  // reads after finished() (the job's thread has ended by then).
  JobWork work = [config, output, summary, then = after.work](JobContext& job) {
    if (!then) {
      *summary = engine::runCapture(config, job);
      return;
    }
    {
      engine::ProgressShareSink share(job, 0.0, kCaptureShare);
      JobContext step = share.context();
      *summary = engine::runCapture(config, step);
    }
    job.info(capturedText(*summary, output).toStdString());  // in the log before what follows
    job.checkCancelled();
    engine::ProgressShareSink share(job, kCaptureShare, 1.0 - kCaptureShare);
    JobContext step = share.context();
    then(config.output, step);
  };
  m_workbench->startJob(
      after.scoresLayers ? tr("Capturing and scoring %1").arg(model)
                         : tr("Capturing %1").arg(model),
      std::move(work),
      [this, config, output, summary, after](JobOutcome outcome, const QString& error) {
        switch (outcome) {
          case JobOutcome::Succeeded:
            if (!after.work)  // else the job logged it before its follow-up began
              m_workbench->log().append(MessageLevel::Info, capturedText(*summary, output));
            m_workbench->service<OpenService>().openActivationStore(output);
            break;
          case JobOutcome::Cancelled:
            if (after.work && summary->tokens > 0) {  // the capture had finished: keep it at hand
              m_workbench->log().append(
                  MessageLevel::Warning,
                  tr("Captured into %1, but “%2” was cancelled; the store is complete and opens "
                     "now")
                      .arg(output, after.description));
              m_workbench->service<OpenService>().openActivationStore(output);
              break;
            }
            m_workbench->log().append(MessageLevel::Warning,
                                      tr("Capture into %1 was cancelled: the finished layers are "
                                         "kept, and capturing again with Resume completes the "
                                         "store")
                                          .arg(output));
            break;
          case JobOutcome::Failed:
            m_workbench->reportFailure(
                after.work ? tr("Could not capture into “%1” and %2.")
                                 .arg(QFileInfo(output).fileName(), after.description)
                           : tr("Could not capture into “%1”.").arg(QFileInfo(output).fileName()),
                error, captureDetails(config));
            break;
        }
        emit captureFinished(output, outcome);
      });
}

}  // namespace strata
