// MainWindow, bridgeability sweeps: Bridge ▸ Bridgeability Sweep… runs core's runBridgeSweep in
// a background job — it trains one bridge after another, so it never runs beside a training
// job — while the Bridge tab follows whichever of its layer runs is training; success (or Open
// Sweep Folder…) shows sweep.json in a Bridgeability tab.

#include <QDir>
#include <QFileInfo>
#include <QTabWidget>

#include "bridge_sweep_dialog.h"
#include "bridgeability_view.h"
#include "clean_path.h"
#include "common/build_info.h"
#include "common/error.h"
#include "display_text.h"
#include "gui_settings.h"
#include "log_dock.h"
#include "main_window.h"
#include "preferences.h"
#include "recipes/bridge_sweep.h"
#include "store_summary_view.h"

namespace strata {
namespace {

QString sweepKey(const QString& folder) { return folder + QStringLiteral("#bridgeability"); }
QString fileName(const QString& path) { return QFileInfo(path).fileName(); }

QString sweepDetails(const BridgeSweepConfig& c) {
  QStringList settings;
  for (const std::string& setting : c.settings) settings << QString::fromStdString(setting);
  return MainWindow::tr(
             "Model: %1\nCorpus: %2\nStore: %3\nLayers %4..%5, %6 steps each\n"
             "Sweep folder: %7\nSettings: %8")
      .arg(
          toQString(c.model), toQString(c.corpus),
          c.store.empty() ? MainWindow::tr("(captured into the sweep folder)") : toQString(c.store))
      .arg(c.firstLayer)
      .arg(c.lastLayer)
      .arg(c.steps)
      .arg(toQString(c.folder), settings.join(QLatin1Char(' ')));
}

}  // namespace

void MainWindow::showBridgeSweepDialog() {
  auto* dialog = new BridgeSweepDialog(m_runsRoot, this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  if (m_options.persistSettings) dialog->restoreSettings(guiSettings());
  const QString store = m_bridgeView ? m_bridgeView->store() : currentStore();
  if (m_bridgeView) {
    dialog->setModelFolder(m_bridgeView->modelFolder());
    dialog->setCorpus(m_bridgeView->corpus());
  } else {
    dialog->setModelFolder(currentModel());
  }
  dialog->setStore(store);
  if (const auto summary = m_stores.value(cleanAbsolute(store));
      summary && summary->meta.numLayers >= 3)
    dialog->setLayerRange(1, summary->meta.numLayers - 1);  // DESIGN.md's default candidates
  connect(dialog, &QDialog::accepted, this, [this, dialog] {
    if (m_options.persistSettings) {
      QSettings settings = guiSettings();
      dialog->saveSettings(settings);
    }
    try {
      startBridgeSweep(dialog->config());
    } catch (const Error& error) {  // the form re-checks on every edit: only a race gets here
      reportError({tr("Could not start the sweep."), QString::fromStdString(error.what()), {}});
    }
  });
  dialog->open();
}

bool MainWindow::startBridgeSweep(const BridgeSweepConfig& config) {
  const QString folder = cleanAbsolute(toQString(config.folder));
  if (m_sweepJob) {
    m_logDock->append(
        MessageLevel::Warning,
        tr("Not sweeping into %1: the sweep in %2 is running").arg(folder, m_sweepFolder));
    return false;
  }
  if (m_trainingJob) {
    m_logDock->append(MessageLevel::Warning,
                      tr("Not sweeping into %1: %2 is training; stop it first")
                          .arg(folder, fileName(m_trainingFolder)));
    return false;
  }
  BridgeSweepConfig request = config;
  if (m_options.persistSettings) request.device = jobDevice();  // the Preferences' device
  request.folder = toFsPath(folder);
  const QString details = sweepDetails(request);
  m_logDock->append(MessageLevel::Info, tr("Bridgeability sweep of layers %1..%2 into %3")
                                            .arg(request.firstLayer)
                                            .arg(request.lastLayer)
                                            .arg(folder));
  auto result = std::make_shared<BridgeSweepResult>();
  JobWork work = [request, result](JobContext& job) {
    yieldToTheGui();
    *result = runBridgeSweep(request, job);
  };
  m_sweepFolder = folder;
  showBridgeView();
  m_bridgeView->followSweep(folder);
  JobController* job = startJob(
      tr("Sweep %1").arg(fileName(folder)), std::move(work),
      [this, folder, result, details](JobOutcome outcome, const QString& error) {
        m_sweepJob = nullptr;
        m_sweepFolder.clear();
        if (m_bridgeView) m_bridgeView->stopFollowingSweep();
        switch (outcome) {
          case JobOutcome::Succeeded:
            m_logDock->append(MessageLevel::Info,
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
            m_logDock->append(MessageLevel::Warning,
                              tr("Sweep %1 stopped: its finished layers are kept, and sweeping "
                                 "into the same folder again continues it")
                                  .arg(fileName(folder)));
            break;
          case JobOutcome::Failed:
            reportError({tr("The bridgeability sweep into “%1” failed.").arg(fileName(folder)),
                         error,
                         tr("%1\nError: %2\nStrata %3")
                             .arg(details, error, QLatin1String(build::kVersion))});
            break;
        }
        emit bridgeSweepFinished(folder, outcome);
      });
  m_sweepJob = job;
  // Step lines stay out of the session log (the Bridge tab plots the evaluations, the Training
  // tab lists the layer runs); the sweep's own lines and every warning go in.
  disconnect(job, &JobController::messageLogged, m_logDock, &LogDock::appendMessage);
  connect(job, &JobController::messageLogged, this, [this](int level, const QString& text) {
    if (level == static_cast<int>(MessageLevel::Info) && text.startsWith(QLatin1String("step ")))
      return;
    m_logDock->appendMessage(level, text);
  });
  return true;
}

void MainWindow::openSweepFolder(const QString& folder) {
  const QString clean = cleanAbsolute(folder);
  std::shared_ptr<const BridgeSweepResult> result;
  try {  // sweep.json is a few hundred bytes: read here, not in a job
    result = std::make_shared<const BridgeSweepResult>(readBridgeSweep(toFsPath(clean)));
  } catch (const Error& error) {
    const QString text = QString::fromStdString(error.what());
    reportError({tr("Could not open the sweep in “%1”.").arg(fileName(clean)), text,
                 tr("Sweep folder: %1\nError: %2\nStrata %3")
                     .arg(clean, text, QLatin1String(build::kVersion))});
    return;
  }
  showBridgeability(clean, std::move(result));
}

void MainWindow::showBridgeability(const QString& folder,
                                   std::shared_ptr<const BridgeSweepResult> result) {
  if (BridgeabilityView* view = bridgeabilityView(folder)) {
    view->setResult(std::move(result));
    focusTab(sweepKey(folder));
    return;
  }
  auto* view = new BridgeabilityView(folder, std::move(result));
  connect(view, &BridgeabilityView::runActivated, this, &MainWindow::showRunInTrainingView);
  addTab(view, sweepKey(folder), tr("Bridgeability — %1").arg(fileName(folder)));
}

void MainWindow::showRunInTrainingView(const QString& run) {
  if (run.isEmpty()) return;
  showTrainingView();
  m_trainingView->addRunFolder(run);
  m_trainingView->showRun(run);
}

}  // namespace strata
