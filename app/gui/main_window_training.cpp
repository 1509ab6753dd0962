// MainWindow, training: Training ▸ Start Training… builds its form from the recipe's schema,
// core's startTraining / resumeTraining run in a background job (one at a time), and the
// Training tab follows the run through its folder — the same files a strata-cli run writes, so
// the tab shows both alike. Pause/Resume go through a TrainingControl shared with the job; Stop
// cancels the job, and the engine checkpoints and marks the run stopped.

#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QMenuBar>
#include <QTabWidget>

#ifdef __linux__
#include <sys/resource.h>
#include <unistd.h>
#endif

#include "clean_path.h"
#include "common/build_info.h"
#include "common/error.h"
#include "display_text.h"
#include "engine/run_folder.h"
#include "gui_settings.h"
#include "log_dock.h"
#include "main_window.h"
#include "preferences.h"
#include "engine/recipe_catalog.h"
#include "training_launch_dialog.h"
#include "training_view.h"

namespace strata {
namespace {

const QString kTrainingTabKey = QStringLiteral("strata:training");
const QString kRunsRootKey = QStringLiteral("training/runsRoot");

QString runName(const QString& folder) { return QFileInfo(folder).fileName(); }

}  // namespace

/** On the job's thread: when the GUI thread and training both want the CPU, the GUI wins, so
 *  the window stays responsive on a busy machine. Threads the loop starts inherit it. */
void MainWindow::yieldToTheGui() {
#ifdef __linux__
  setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 5);  // per thread on Linux
#endif
}

void MainWindow::createTrainingMenu() {
  m_runsRoot = cleanAbsolute(toQString(defaultRunsRoot()));
  if (m_options.persistSettings)
    m_runsRoot = guiSettings().value(kRunsRootKey, m_runsRoot).toString();

  QMenu* menu = menuBar()->addMenu(tr("&Training"));
  m_startTrainingAction =
      menu->addAction(tr("&Start Training…"), this, &MainWindow::showTrainingLaunchDialog);
  m_startTrainingAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_T));
  m_startTrainingAction->setStatusTip(tr("Choose a recipe and its settings, and train it here"));
  QAction* runs = menu->addAction(tr("Training &Runs"), this, &MainWindow::showTrainingView);
  runs->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T));
  runs->setStatusTip(tr("Show the runs folder's runs, live, with their loss curves"));
  QAction* routing = menu->addAction(tr("Chunk R&outing…"), this, [this] { showChunkRouting(); });
  routing->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
  routing->setStatusTip(tr("See how a dcdm run routes a text, checkpoint by checkpoint"));
  QAction* alignment = menu->addAction(tr("&Alignment…"), this, [this] { showAlignment(); });
  alignment->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L));
  alignment->setStatusTip(tr("Per-layer student–teacher cosines of a repr_align run, live"));
}

void MainWindow::setRunsRoot(const QString& root) {
  const QString clean = cleanAbsolute(root);
  if (clean == m_runsRoot) return;
  m_runsRoot = clean;
  if (m_options.persistSettings) guiSettings().setValue(kRunsRootKey, m_runsRoot);
  if (m_trainingView) m_trainingView->setRunsRoot(m_runsRoot);
}

void MainWindow::showTrainingView() {
  if (m_trainingView) {
    focusTab(kTrainingTabKey);
    return;
  }
  auto* view = new TrainingView(m_runsRoot, this);
  connect(view, &TrainingView::startRequested, this, &MainWindow::showTrainingLaunchDialog);
  connect(view, &TrainingView::pauseRequested, this, &MainWindow::pauseTraining);
  connect(view, &TrainingView::resumeRequested, this, &MainWindow::resumeTrainingRun);
  connect(view, &TrainingView::stopRequested, this, &MainWindow::stopTraining);
  connect(view, &TrainingView::runsRootChanged, this, &MainWindow::setRunsRoot);
  m_trainingView = view;
  if (m_trainingJob) {  // the tab was closed and reopened while a run trains
    view->setActiveRun(m_trainingFolder, m_trainingControl.paused()
                                             ? TrainingView::ActiveState::Paused
                                             : TrainingView::ActiveState::Training);
    view->showRun(m_trainingFolder);
  }
  addTab(view, kTrainingTabKey, tr("Training"));
}

void MainWindow::showTrainingLaunchDialog() {
  // The Preferences' device and threads, where they differ from the engine's defaults, fill
  // the launcher over the values it remembers per recipe.
  QMap<QString, QString> values;
  if (m_options.persistSettings) {
    const PreferenceValues preferences = loadPreferences();
    if (preferences.device != QLatin1String("auto")) values["device"] = preferences.device;
    if (preferences.threads > 0) values["threads"] = QString::number(preferences.threads);
  }
  openTrainingLauncher({}, values);
}

void MainWindow::openTrainingLauncher(const QString& recipe, const QMap<QString, QString>& values) {
  std::vector<ConfigSchema> schemas;
  try {
    for (const std::string& name : recipeNames()) schemas.push_back(recipeSchema(name));
    if (schemas.empty()) throw Error("no training recipe is registered");
  } catch (const std::exception& error) {
    reportError({tr("Could not list the training recipes."), QString::fromStdString(error.what()),
                 QString::fromStdString(error.what())});
    return;
  }
  auto* dialog = new TrainingLaunchDialog(std::move(schemas), m_runsRoot, this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  if (m_options.persistSettings) dialog->restoreSettings(guiSettings(), recipe);
  if (!recipe.isEmpty()) dialog->setRecipe(recipe);
  for (auto value = values.begin(); value != values.end(); ++value)
    dialog->setValueText(value.key(), value.value());
  connect(dialog, &QDialog::accepted, this, [this, dialog] {
    if (m_options.persistSettings) {
      QSettings settings = guiSettings();
      dialog->saveSettings(settings);
    }
    try {
      startTrainingRun(dialog->request());
    } catch (const Error& error) {  // the form re-checks on every edit: only a race gets here
      reportError({tr("Could not start training."), QString::fromStdString(error.what()), {}});
    }
  });
  dialog->open();  // window-modal without a nested event loop, like every dialog here
}

bool MainWindow::startTrainingRun(TrainingRequest request) {
  const QString folder = cleanAbsolute(toQString(request.runFolder));
  if (m_trainingJob) {
    m_logDock->append(MessageLevel::Warning, tr("Not starting %1: %2 is training; stop it first")
                                                 .arg(runName(folder), runName(m_trainingFolder)));
    return false;
  }
  if (m_sweepJob) {  // a sweep trains bridges: one training at a time either way
    m_logDock->append(MessageLevel::Warning,
                      tr("Not starting %1: the bridgeability sweep in %2 is training; cancel it "
                         "first")
                          .arg(runName(folder), m_sweepFolder));
    return false;
  }
  m_trainingRecipe = QString::fromStdString(request.recipe);
  m_trainingControl = TrainingControl{};
  request.control = m_trainingControl;
  request.runFolder = toFsPath(folder);
  QString details = tr("Recipe: %1\nRun folder: %2\nConfig: %3")
                        .arg(QString::fromStdString(request.recipe), folder);
  try {
    details = details.arg(
        QString::fromStdString(configToJson(recipeSchema(request.recipe), request.config)));
  } catch (const Error&) {
    details = details.arg(tr("(unknown recipe)"));
  }
  m_logDock->append(MessageLevel::Info,
                    tr("Training %1 into %2").arg(QString::fromStdString(request.recipe), folder));
  auto summary = std::make_shared<TrainingSummary>();
  // The worker owns its copy of the request and writes only *summary, read after finished().
  JobWork work = [request, summary](JobContext& job) {
    yieldToTheGui();
    *summary = startTraining(request, job);
  };
  runTrainingJob(folder, tr("Training %1").arg(runName(folder)), std::move(work), summary, details);
  return true;
}

bool MainWindow::resumeTrainingRun(const QString& runFolder) {
  const QString folder = cleanAbsolute(runFolder);
  if (m_trainingJob) {
    if (folder == m_trainingFolder && m_trainingControl.paused()) {
      m_trainingControl.resume();
      m_logDock->append(MessageLevel::Info, tr("Training of %1 continues").arg(runName(folder)));
      if (m_trainingView) m_trainingView->setActiveRun(folder, TrainingView::ActiveState::Training);
      return true;
    }
    m_logDock->append(MessageLevel::Warning, tr("Not resuming %1: %2 is training; stop it first")
                                                 .arg(runName(folder), runName(m_trainingFolder)));
    return false;
  }
  if (m_sweepJob) {
    m_logDock->append(MessageLevel::Warning,
                      tr("Not resuming %1: the bridgeability sweep in %2 is training; cancel it "
                         "first")
                          .arg(runName(folder), m_sweepFolder));
    return false;
  }
  try {
    m_trainingRecipe = QString::fromStdString(readRunInfo(toFsPath(folder)).recipe);
  } catch (const Error&) {
    m_trainingRecipe.clear();  // resumeTraining reports the unreadable run.json
  }
  m_trainingControl = TrainingControl{};
  m_logDock->append(MessageLevel::Info, tr("Resuming %1 from its newest checkpoint").arg(folder));
  auto summary = std::make_shared<TrainingSummary>();
  JobWork work = [path = toFsPath(folder), control = m_trainingControl, summary](JobContext& job) {
    yieldToTheGui();
    *summary = resumeTraining(path, job, {}, control);
  };
  runTrainingJob(folder, tr("Resuming %1").arg(runName(folder)), std::move(work), summary,
                 tr("Run folder: %1 (resumed)").arg(folder));
  return true;
}

void MainWindow::pauseTraining() {
  if (!m_trainingJob) return;
  m_trainingControl.pause();
  m_logDock->append(
      MessageLevel::Info,
      tr("Training of %1 paused; Resume continues it").arg(runName(m_trainingFolder)));
  if (m_trainingView)
    m_trainingView->setActiveRun(m_trainingFolder, TrainingView::ActiveState::Paused);
}

void MainWindow::stopTraining() {
  if (!m_trainingJob) return;
  m_trainingJob->cancel();
  m_trainingControl.resume();  // a paused loop wakes up and sees the cancellation
  m_logDock->append(MessageLevel::Info,
                    tr("Stopping %1 after its current step (it checkpoints first)")
                        .arg(runName(m_trainingFolder)));
}

void MainWindow::runTrainingJob(const QString& folder, const QString& what, JobWork work,
                                std::shared_ptr<const TrainingSummary> summary,
                                const QString& details) {
  showTrainingView();
  m_trainingFolder = folder;
  JobController* job = startJob(
      what, std::move(work),
      [this, folder, summary, details](JobOutcome outcome, const QString& error) {
        m_trainingJob = nullptr;  // deleted later; a Resume may start the next job at once
        m_trainingFolder.clear();
        if (m_trainingView) {
          m_trainingView->setActiveRun({}, TrainingView::ActiveState::None);
          m_trainingView->refreshRuns();
          m_trainingView->pollShownRun();
        }
        switch (outcome) {
          case JobOutcome::Succeeded:
            m_logDock->append(
                MessageLevel::Info,
                tr("Training of %1 %2 at step %3 of %4 in %5 s")
                    .arg(runName(folder), summary->finished ? tr("finished") : tr("stopped"))
                    .arg(summary->lastStep)
                    .arg(summary->totalSteps)
                    .arg(summary->seconds, 0, 'f', 1));
            break;
          case JobOutcome::Cancelled:
            m_logDock->append(MessageLevel::Warning,
                              tr("Training of %1 stopped at step %2: Resume in the Training tab "
                                 "continues it from its checkpoint")
                                  .arg(runName(folder))
                                  .arg(readRunStatus(toFsPath(folder)).step));
            break;
          case JobOutcome::Failed:
            reportError({tr("Training of “%1” failed.").arg(runName(folder)), error,
                         tr("%1\nError: %2\nStrata %3")
                             .arg(details, error, QLatin1String(build::kVersion))});
            break;
        }
        emit trainingFinished(folder, outcome);
      });
  m_trainingJob = job;
  // Step lines go to the tab's log only; the session log keeps warnings and errors.
  disconnect(job, &JobController::messageLogged, m_logDock, &LogDock::appendMessage);
  connect(job, &JobController::messageLogged, this, [this](int level, const QString& text) {
    if (m_trainingView) m_trainingView->appendLog(level, text);
    if (level != static_cast<int>(MessageLevel::Info)) m_logDock->appendMessage(level, text);
  });
  connect(job, &JobController::progressChanged, this,
          [this](double fraction, const QString& stage) {
            if (m_trainingView) m_trainingView->showJobProgress(fraction, stage);
          });
  if (m_trainingView) {
    m_trainingView->appendLog(static_cast<int>(MessageLevel::Info), what);
    m_trainingView->setActiveRun(folder, TrainingView::ActiveState::Training);
    m_trainingView->showRun(folder);
  }
  emit trainingStarted(folder);
}

}  // namespace strata
