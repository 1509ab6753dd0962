// BridgeFeature, bridgeability sweeps: Bridge ▸ Bridgeability Sweep… runs core's runBridgeSweep
// (studies/comparison_studies.h, a study) in a background job — it trains one bridge after
// another, so it takes the workbench's training slot and never runs beside a training job —
// while the Bridge tab follows whichever of its layer runs is training; success (or Open Sweep
// Folder…) shows sweep.json in a Bridgeability tab.

#include "recipes/bridge/bridge_sweep.h"

#include <QFileInfo>

#include "bridge_feature.h"
#include "bridge_sweep_dialog.h"
#include "bridgeability_view.h"
#include "clean_path.h"
#include "common/error.h"
#include "display_text.h"
#include "gui_settings.h"
#include "log_dock.h"
#include "preferences.h"
#include "services.h"
#include "store_summary_view.h"
#include "studies/comparison_studies.h"
#include "tab_keys.h"
#include "workbench.h"
#include "yield_to_gui.h"

namespace strata {
namespace {

QString fileName(const QString& path) { return QFileInfo(path).fileName(); }

QString sweepDetails(const recipes::BridgeSweepConfig& c) {
  QStringList settings;
  for (const std::string& setting : c.settings) settings << QString::fromStdString(setting);
  return BridgeFeature::tr(
             "Model: %1\nCorpus: %2\nStore: %3\nLayers %4..%5, %6 steps each\n"
             "Sweep folder: %7\nSettings: %8")
      .arg(toQString(c.model), toQString(c.corpus),
           c.store.empty() ? BridgeFeature::tr("(captured into the sweep folder)")
                           : toQString(c.store))
      .arg(c.firstLayer)
      .arg(c.lastLayer)
      .arg(c.steps)
      .arg(toQString(c.folder), settings.join(QLatin1Char(' ')));
}

}  // namespace

QString BridgeFeature::sweepFolder() const {
  const TrainingSlot& slot = m_workbench->trainingSlot();
  return slot.holder == kSweepHolder ? slot.folder : QString();
}

void BridgeFeature::showBridgeSweepDialog() {
  auto* dialog = new BridgeSweepDialog(m_workbench->runsRoot(), m_workbench->dialogParent());
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  if (m_workbench->persistSettings()) dialog->restoreSettings(guiSettings());
  const QString store = m_bridgeView ? m_bridgeView->store() : m_workbench->currentStore();
  if (m_bridgeView) {
    dialog->setModelFolder(m_bridgeView->modelFolder());
    dialog->setCorpus(m_bridgeView->corpus());
  } else {
    dialog->setModelFolder(m_workbench->currentModel());
  }
  dialog->setStore(store);
  if (const auto summary = m_workbench->store(cleanAbsolute(store));
      summary && summary->meta.numLayers >= 3)
    dialog->setLayerRange(1, summary->meta.numLayers - 1);  // DESIGN.md's default candidates
  connect(dialog, &QDialog::accepted, this, [this, dialog] {
    if (m_workbench->persistSettings()) {
      QSettings settings = guiSettings();
      dialog->saveSettings(settings);
    }
    try {
      startBridgeSweep(dialog->config());
    } catch (const Error& error) {  // the form re-checks on every edit: only a race gets here
      m_workbench->reportFailure(tr("Could not start the sweep."),
                                 QString::fromStdString(error.what()));
    }
  });
  dialog->open();
}

bool BridgeFeature::startBridgeSweep(const recipes::BridgeSweepConfig& config) {
  const QString folder = cleanAbsolute(toQString(config.folder));
  const TrainingSlot& slot = m_workbench->trainingSlot();
  if (slot.holder == kSweepHolder) {
    m_workbench->log().append(
        MessageLevel::Warning,
        tr("Not sweeping into %1: the sweep in %2 is running").arg(folder, slot.folder));
    return false;
  }
  if (slot.holder == kStudyHolder) {
    m_workbench->log().append(
        MessageLevel::Warning,
        tr("Not sweeping into %1: the study in %2 is running").arg(folder, slot.folder));
    return false;
  }
  if (!slot.isFree()) {
    m_workbench->log().append(MessageLevel::Warning,
                              tr("Not sweeping into %1: %2 is training; stop it first")
                                  .arg(folder, fileName(slot.folder)));
    return false;
  }
  recipes::BridgeSweepConfig request = config;
  if (m_workbench->persistSettings()) request.device = jobDevice();  // the Preferences' device
  request.folder = toFsPath(folder);
  const QString details = sweepDetails(request);
  m_workbench->log().append(MessageLevel::Info, tr("Bridgeability sweep of layers %1..%2 into %3")
                                                    .arg(request.firstLayer)
                                                    .arg(request.lastLayer)
                                                    .arg(folder));
  auto result = std::make_shared<recipes::BridgeSweepResult>();
  JobWork work = [request, result](JobContext& job) {
    yieldToTheGui();
    *result = studies::runBridgeSweep(request, job);
  };
  showBridgeView();
  m_bridgeView->followSweep(folder);
  m_workbench->occupyTrainingSlot({kSweepHolder, folder, {}});
  JobController* job = m_workbench->startJob(
      tr("Sweep %1").arg(fileName(folder)), std::move(work),
      [this, folder, result, details](JobOutcome outcome, const QString& error) {
        m_workbench->freeTrainingSlot();
        if (m_bridgeView) m_bridgeView->stopFollowingSweep();
        switch (outcome) {
          case JobOutcome::Succeeded:
            m_workbench->log().append(
                MessageLevel::Info,
                tr("Sweep %1: ρ(S, −val loss) = %2, p = %3; l* by score %4, lowest "
                   "loss at layer %5")
                    .arg(fileName(folder))
                    .arg(result->rho, 0, 'f', 2)
                    .arg(result->pValue, 0, 'g', 3)
                    .arg(result->bestByScore)
                    .arg(result->bestByLoss));
            showBridgeability(folder, result);
            break;
          case JobOutcome::Cancelled:
            m_workbench->log().append(MessageLevel::Warning,
                                      tr("Sweep %1 stopped: its finished layers are kept, and "
                                         "sweeping into the same folder again continues it")
                                          .arg(fileName(folder)));
            break;
          case JobOutcome::Failed:
            m_workbench->reportFailure(
                tr("The bridgeability sweep into “%1” failed.").arg(fileName(folder)), error,
                details);
            break;
        }
        emit bridgeSweepFinished(folder, outcome);
      });
  // Step lines stay out of the session log (the Bridge tab plots the evaluations, the Training
  // tab lists the layer runs); the sweep's own lines and every warning go in.
  LogDock* log = &m_workbench->log();
  disconnect(job, &JobController::messageLogged, log, &LogDock::appendMessage);
  connect(job, &JobController::messageLogged, this, [log](int level, const QString& text) {
    if (level == static_cast<int>(MessageLevel::Info) && text.startsWith(QLatin1String("step ")))
      return;
    log->appendMessage(level, text);
  });
  return true;
}

void BridgeFeature::openSweepFolder(const QString& folder) {
  const QString clean = cleanAbsolute(folder);
  std::shared_ptr<const recipes::BridgeSweepResult> result;
  try {  // sweep.json is a few hundred bytes: read here, not in a job
    result = std::make_shared<const recipes::BridgeSweepResult>(
        recipes::readBridgeSweep(toFsPath(clean)));
  } catch (const Error& error) {
    m_workbench->reportFailure(tr("Could not open the sweep in “%1”.").arg(fileName(clean)),
                               QString::fromStdString(error.what()),
                               tr("Sweep folder: %1").arg(clean));
    return;
  }
  showBridgeability(clean, std::move(result));
}

void BridgeFeature::showBridgeability(const QString& folder,
                                      std::shared_ptr<const recipes::BridgeSweepResult> result) {
  if (BridgeabilityView* view = bridgeabilityView(folder)) {
    view->setResult(std::move(result));
    m_workbench->focusTab(tabkey::sweep(folder));
    return;
  }
  auto* view = new BridgeabilityView(folder, std::move(result));
  connect(view, &BridgeabilityView::runActivated, this,
          [this](const QString& run) { m_workbench->service<TrainingService>().showRun(run); });
  m_workbench->addTab(view, tabkey::sweep(folder), tr("Bridgeability — %1").arg(fileName(folder)));
}

}  // namespace strata
