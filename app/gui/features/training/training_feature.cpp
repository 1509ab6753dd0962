#include "training_feature.h"

#include <QAction>
#include <QFileInfo>

#include "clean_path.h"
#include "common/error.h"
#include "display_text.h"
#include "engine/recipe_catalog.h"
#include "engine/run_folder.h"
#include "gui_settings.h"
#include "log_dock.h"
#include "preferences.h"
#include "project_runs.h"
#include "tab_keys.h"
#include "training_launch_dialog.h"
#include "workbench.h"
#include "yield_to_gui.h"

namespace strata {
namespace {

const FeatureRegistration<TrainingFeature> registration("training", 60);
/** The Training menu, by id: the features that train or show runs share it. */
const QString kTrainingMenu = QStringLiteral("training");
// What holds the training slot, by id: this feature's runs, the bridge feature's sweeps and the
// studies feature's studies.
const QString kRunHolder = QStringLiteral("run");
const QString kSweepHolder = QStringLiteral("sweep");
const QString kStudyHolder = QStringLiteral("study");

QString runName(const QString& folder) { return QFileInfo(folder).fileName(); }

}  // namespace

void TrainingFeature::install(Workbench& workbench) {
  m_workbench = &workbench;
  auto* start = new QAction(tr("&Start Training…"), this);
  start->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_T));
  start->setStatusTip(tr("Choose a recipe and its settings, and train it here"));
  connect(start, &QAction::triggered, this, &TrainingFeature::showTrainingLaunchDialog);
  workbench.declareMenu(kTrainingMenu, tr("&Training"));
  workbench.addMenuAction(kTrainingMenu, start);
  auto* runs = new QAction(tr("Training &Runs"), this);
  runs->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T));
  runs->setStatusTip(tr("Show the runs folder's runs, live, with their loss curves"));
  connect(runs, &QAction::triggered, this, &TrainingFeature::showTrainingView);
  workbench.addMenuAction(kTrainingMenu, runs);
  // The dock's Runs: the runs root's runs from the start, not only once the tab is open.
  m_projectRuns = new ProjectRuns(workbench.projects(), this);
  m_projectRuns->refresh(workbench.runsRoot());
  connect(&workbench.events(), &WorkbenchEvents::runsRootChanged, this,
          [this](const QString& root) {
            if (m_view) m_view->setRunsRoot(root);
            m_projectRuns->refresh(root);
          });
}

void TrainingFeature::showTrainingView() {
  if (m_view) {
    m_workbench->focusTab(tabkey::kTraining);
    return;
  }
  auto* view = new TrainingView(m_workbench->runsRoot(), &m_workbench->metricsFeeds(),
                                m_workbench->dialogParent());
  connect(view, &TrainingView::startRequested, this, &TrainingFeature::showTrainingLaunchDialog);
  connect(view, &TrainingView::pauseRequested, this, &TrainingFeature::pauseTraining);
  connect(view, &TrainingView::resumeRequested, this, &TrainingFeature::resumeTrainingRun);
  connect(view, &TrainingView::stopRequested, this, &TrainingFeature::stopTraining);
  connect(view, &TrainingView::runsRootChanged, this,
          [this](const QString& root) { m_workbench->setRunsRoot(root); });
  m_view = view;
  if (m_job) {  // the tab was closed and reopened while a run trains
    const QString folder = m_workbench->trainingSlot().folder;
    view->setActiveRun(folder, m_control.paused() ? TrainingView::ActiveState::Paused
                                                  : TrainingView::ActiveState::Training);
    view->showRun(folder);
  }
  m_workbench->addTab(view, tabkey::kTraining, tr("Training"));
}

void TrainingFeature::showRun(const QString& run) {
  if (run.isEmpty()) return;
  showTrainingView();
  m_view->addRunFolder(run);
  m_view->showRun(run);
}

QString TrainingFeature::shownRun() const { return m_view ? m_view->shownRun() : QString(); }

void TrainingFeature::showTrainingLaunchDialog() {
  // The Preferences' device and threads, where they differ from the engine's defaults, and the
  // selected model (a recipe's `model`) fill the launcher over the values it remembers.
  QMap<QString, QString> values;
  if (m_workbench->persistSettings()) {
    const PreferenceValues preferences = loadPreferences();
    if (preferences.device != QLatin1String("auto")) values["device"] = preferences.device;
    if (preferences.threads > 0) values["threads"] = QString::number(preferences.threads);
  }
  if (const QString model = m_workbench->currentModel(); !model.isEmpty()) values["model"] = model;
  openTrainingLauncher({}, values);
}

void TrainingFeature::openTrainingLauncher(const QString& recipe,
                                           const QMap<QString, QString>& values) {
  std::vector<engine::ConfigSchema> schemas;
  try {
    for (const std::string& name : engine::recipeNames())
      schemas.push_back(engine::recipeSchema(name));
    if (schemas.empty()) throw Error("no training recipe is registered");
  } catch (const std::exception& error) {
    m_workbench->reportFailure(tr("Could not list the training recipes."),
                               QString::fromStdString(error.what()));
    return;
  }
  auto* dialog = new TrainingLaunchDialog(std::move(schemas), m_workbench->runsRoot(),
                                          m_workbench->dialogParent());
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  if (m_workbench->persistSettings()) dialog->restoreSettings(guiSettings(), recipe);
  if (!recipe.isEmpty()) dialog->setRecipe(recipe);
  for (auto value = values.begin(); value != values.end(); ++value)
    dialog->setValueTextForEveryRecipe(value.key(), value.value());
  connect(
      dialog, &TrainingLaunchDialog::planRequested, this,
      [this, dialog](const engine::TrainingRequest& request) { planTrainingRun(dialog, request); });
  connect(dialog, &QDialog::accepted, this, [this, dialog] {
    if (m_workbench->persistSettings()) {
      QSettings settings = guiSettings();
      dialog->saveSettings(settings);
    }
    try {
      startTrainingRun(dialog->request());
    } catch (const Error& error) {  // the form re-checks on every edit: only a race gets here
      m_workbench->reportFailure(tr("Could not start training."),
                                 QString::fromStdString(error.what()));
    }
  });
  dialog->open();  // window-modal without a nested event loop, like every dialog here
}

void TrainingFeature::planTrainingRun(TrainingLaunchDialog* dialog,
                                      const engine::TrainingRequest& request) {
  // A job (a model's header, a tokenizer, or a GGUF import can take a while); the dialog may
  // be closed before it ends.
  const QPointer<TrainingLaunchDialog> shown(dialog);
  auto preview = std::make_shared<engine::TrainingPlanPreview>();
  m_workbench->startJob(
      tr("Planning memory for %1").arg(QString::fromStdString(request.recipe)),
      [request, preview](JobContext& job) { *preview = engine::planTraining(request, job); },
      [shown, preview](JobOutcome outcome, const QString& error) {
        if (!shown) return;
        if (outcome == JobOutcome::Succeeded)
          shown->showPlan(QString::fromStdString(preview->plan), preview->fits,
                          QString::fromStdString(preview->refusal));
        else
          shown->showPlanFailure(outcome == JobOutcome::Cancelled ? tr("cancelled") : error);
      });
}

bool TrainingFeature::slotIsFree(const QString& action, const QString& folder) {
  const TrainingSlot& slot = m_workbench->trainingSlot();
  if (slot.isFree()) return true;
  if (slot.holder == kSweepHolder)  // a sweep trains bridges: one training at a time
    m_workbench->log().append(
        MessageLevel::Warning,
        tr("Not %1 %2: the bridgeability sweep in %3 is training; cancel it first")
            .arg(action, runName(folder), slot.folder));
  else if (slot.holder == kStudyHolder)  // a study trains its runs: one training at a time
    m_workbench->log().append(MessageLevel::Warning,
                              tr("Not %1 %2: the study in %3 is training; cancel it first")
                                  .arg(action, runName(folder), slot.folder));
  else
    m_workbench->log().append(MessageLevel::Warning,
                              tr("Not %1 %2: %3 is training; stop it first")
                                  .arg(action, runName(folder), runName(slot.folder)));
  return false;
}

bool TrainingFeature::startTrainingRun(engine::TrainingRequest request) {
  const QString folder = cleanAbsolute(toQString(request.runFolder));
  if (!slotIsFree(tr("starting"), folder)) return false;
  m_control = engine::TrainingControl{};
  request.control = m_control;
  request.runFolder = toFsPath(folder);
  QString details = tr("Recipe: %1\nRun folder: %2\nConfig: %3")
                        .arg(QString::fromStdString(request.recipe), folder);
  try {
    details = details.arg(QString::fromStdString(
        engine::configToJson(engine::recipeSchema(request.recipe), request.config)));
  } catch (const Error&) {
    details = details.arg(tr("(unknown recipe)"));
  }
  m_workbench->log().append(
      MessageLevel::Info,
      tr("Training %1 into %2").arg(QString::fromStdString(request.recipe), folder));
  auto summary = std::make_shared<engine::TrainingSummary>();
  // The worker owns its copy of the request and writes only *summary, read after finished().
  JobWork work = [request, summary](JobContext& job) {
    yieldToTheGui();
    *summary = engine::startTraining(request, job);
  };
  runTrainingJob(folder, QString::fromStdString(request.recipe),
                 tr("Training %1").arg(runName(folder)), std::move(work), summary, details);
  return true;
}

bool TrainingFeature::resumeTrainingRun(const QString& runFolder) {
  const QString folder = cleanAbsolute(runFolder);
  if (m_job && folder == m_workbench->trainingSlot().folder && m_control.paused()) {
    m_control.resume();
    m_workbench->log().append(MessageLevel::Info,
                              tr("Training of %1 continues").arg(runName(folder)));
    if (m_view) m_view->setActiveRun(folder, TrainingView::ActiveState::Training);
    return true;
  }
  if (!slotIsFree(tr("resuming"), folder)) return false;
  QString recipe;
  try {
    recipe = QString::fromStdString(engine::readRunInfo(toFsPath(folder)).recipe);
  } catch (const Error&) {
    // resumeTraining reports the unreadable run.json
  }
  m_control = engine::TrainingControl{};
  m_workbench->log().append(MessageLevel::Info,
                            tr("Resuming %1 from its newest checkpoint").arg(folder));
  auto summary = std::make_shared<engine::TrainingSummary>();
  JobWork work = [path = toFsPath(folder), control = m_control, summary](JobContext& job) {
    yieldToTheGui();
    *summary = engine::resumeTraining(path, job, {}, control);
  };
  runTrainingJob(folder, recipe, tr("Resuming %1").arg(runName(folder)), std::move(work), summary,
                 tr("Run folder: %1 (resumed)").arg(folder));
  return true;
}

void TrainingFeature::pauseTraining() {
  if (!m_job) return;
  const QString folder = m_workbench->trainingSlot().folder;
  m_control.pause();
  m_workbench->log().append(MessageLevel::Info,
                            tr("Training of %1 paused; Resume continues it").arg(runName(folder)));
  if (m_view) m_view->setActiveRun(folder, TrainingView::ActiveState::Paused);
}

void TrainingFeature::stopTraining() {
  if (!m_job) return;
  m_job->cancel();
  m_control.resume();  // a paused loop wakes up and sees the cancellation
  m_workbench->log().append(MessageLevel::Info,
                            tr("Stopping %1 after its current step (it checkpoints first)")
                                .arg(runName(m_workbench->trainingSlot().folder)));
}

void TrainingFeature::runTrainingJob(const QString& folder, const QString& recipe,
                                     const QString& what, JobWork work,
                                     std::shared_ptr<const engine::TrainingSummary> summary,
                                     const QString& details) {
  showTrainingView();
  m_workbench->occupyTrainingSlot({kRunHolder, folder, recipe});
  m_projectRuns->refresh(m_workbench->runsRoot());  // a new run's folder exists by now
  JobController* job = m_workbench->startJob(
      what, std::move(work),
      [this, folder, summary, details](JobOutcome outcome, const QString& error) {
        m_job = nullptr;  // deleted later; a Resume may start the next job at once
        m_workbench->freeTrainingSlot();
        m_projectRuns->refresh(m_workbench->runsRoot());
        if (m_view) {
          m_view->setActiveRun({}, TrainingView::ActiveState::None);
          m_view->refreshRuns();
          m_view->pollShownRun();
        }
        switch (outcome) {
          case JobOutcome::Succeeded:
            m_workbench->log().append(
                MessageLevel::Info,
                tr("Training of %1 %2 at step %3 of %4 in %5 s")
                    .arg(runName(folder), summary->finished ? tr("finished") : tr("stopped"))
                    .arg(summary->lastStep)
                    .arg(summary->totalSteps)
                    .arg(summary->seconds, 0, 'f', 1));
            break;
          case JobOutcome::Cancelled:  // the user's Stop: nothing went wrong
            m_workbench->log().append(
                MessageLevel::Info,
                tr("Training of %1 stopped at step %2: Resume in the Training tab "
                   "continues it from its checkpoint")
                    .arg(runName(folder))
                    .arg(engine::readRunStatus(toFsPath(folder)).step));
            break;
          case JobOutcome::Failed:
            m_workbench->reportFailure(tr("Training of “%1” failed.").arg(runName(folder)), error,
                                       details);
            break;
        }
        emit trainingFinished(folder, outcome);
      });
  m_job = job;
  // Step lines go to the tab's log only; the session log keeps warnings and errors.
  LogDock* log = &m_workbench->log();
  disconnect(job, &JobController::messageLogged, log, &LogDock::appendMessage);
  connect(job, &JobController::messageLogged, this, [this, log](int level, const QString& text) {
    if (m_view) m_view->appendLog(level, text);
    if (level != static_cast<int>(MessageLevel::Info)) log->appendMessage(level, text);
  });
  connect(job, &JobController::progressChanged, this,
          [this](double fraction, const QString& stage) {
            if (m_view) m_view->showJobProgress(fraction, stage);
          });
  if (m_view) {
    m_view->appendLog(static_cast<int>(MessageLevel::Info), what);
    m_view->setActiveRun(folder, TrainingView::ActiveState::Training);
    m_view->showRun(folder);
  }
  emit m_workbench->events().trainingStarted(folder);
}

}  // namespace strata
