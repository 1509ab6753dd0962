#include "studies_feature.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <memory>

#include "clean_path.h"
#include "common/error.h"
#include "display_text.h"
#include "log_dock.h"
#include "preferences.h"
#include "studies/study_registry.h"
#include "studies/study_runner.h"
#include "study_dialog.h"
#include "study_plots.h"
#include "study_view.h"
#include "tab_keys.h"
#include "workbench.h"
#include "yield_to_gui.h"

namespace strata {
namespace {

const FeatureRegistration<StudiesFeature> registration("studies", 90);
/** The Training menu, by id: the features that train or show runs share it. */
const QString kTrainingMenu = QStringLiteral("training");
/** What holds the training slot while a study runs, by id. */
const QString kStudyHolder = QStringLiteral("study");

}  // namespace

void StudiesFeature::install(Workbench& workbench) {
  m_workbench = &workbench;
  auto* run = new QAction(tr("Run &Study…"), this);
  run->setStatusTip(
      tr("Replicate a paper's claim: every arm × seed trained, intervals, a verdict"));
  connect(run, &QAction::triggered, this, &StudiesFeature::showStudyDialog);
  workbench.declareMenu(kTrainingMenu, tr("&Training"));
  workbench.addMenuAction(kTrainingMenu, run);
  auto* results = new QAction(tr("Open Study &Results…"), this);
  results->setStatusTip(tr("The analysis and plots of a study folder"));
  connect(results, &QAction::triggered, this, &StudiesFeature::openStudyResults);
  workbench.addMenuAction(kTrainingMenu, results);
}

void StudiesFeature::showStudyDialog() {
  QStringList names;
  for (const std::string& name : studies::studyNames()) names << toQString(name);
  auto* dialog = new StudyDialog(names, m_workbench->runsRoot(), m_workbench->dialogParent());
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &QDialog::accepted, this, [this, dialog] { startStudy(dialog->choice()); });
  dialog->open();
}

bool StudiesFeature::startStudy(const StudyChoice& choice) {
  const QString folder = cleanAbsolute(choice.folder);
  const TrainingSlot& slot = m_workbench->trainingSlot();
  if (!slot.isFree()) {
    m_workbench->log().append(
        MessageLevel::Warning,
        tr("Not running the study in %1: %2 is training; stop it first").arg(folder, slot.folder));
    return false;
  }
  studies::StudyOptions options;
  options.folder = toFsPath(folder);
  options.seeds = choice.seeds;
  options.budget = choice.budget.toStdString();
  for (const QString& setting : choice.overrides())
    options.overrides.push_back(setting.toStdString());
  if (m_workbench->persistSettings()) options.device = jobDevice();  // the Preferences' device
  const std::string name = choice.study.toStdString();
  const QString details = tr("Study: %1\nFolder: %2\nSeeds: %3\nBudget: %4\nSettings: %5")
                              .arg(choice.study, folder)
                              .arg(choice.seeds)
                              .arg(choice.budget, choice.overrides().join(QLatin1Char(' ')));
  m_workbench->log().append(MessageLevel::Info, tr("Study %1 (%2 seeds, %3 budget) in %4")
                                                    .arg(choice.study)
                                                    .arg(choice.seeds)
                                                    .arg(choice.budget, folder));
  JobWork work = [name, options](JobContext& job) {
    yieldToTheGui();
    const std::unique_ptr<studies::Study> study = studies::makeStudy(name);
    studies::runStudy(*study, options, job);
  };
  m_workbench->occupyTrainingSlot({kStudyHolder, folder, {}});
  m_workbench->startJob(
      tr("Study %1").arg(choice.study), std::move(work),
      [this, folder, details](JobOutcome outcome, const QString& error) {
        m_workbench->freeTrainingSlot();
        if (outcome == JobOutcome::Failed) {
          m_workbench->reportFailure(
              tr("The study in “%1” failed.").arg(QFileInfo(folder).fileName()), error, details);
        } else {
          if (outcome == JobOutcome::Cancelled)
            m_workbench->log().append(
                MessageLevel::Warning,
                tr("Study %1 stopped: its finished runs are kept, and running "
                   "it again in the same folder continues it")
                    .arg(folder));
          const QStringList plots = writeStudyPlots(folder);  // the analysis so far
          m_workbench->log().append(MessageLevel::Info,
                                    tr("Study %1: %2 plots in %3")
                                        .arg(QFileInfo(folder).fileName())
                                        .arg(plots.size())
                                        .arg(QDir(folder).filePath(QStringLiteral("plots"))));
          showStudy(folder);
        }
        emit studyFinished(folder, outcome);
      });
  return true;
}

void StudiesFeature::openStudyResults() {
  const QString folder = QFileDialog::getExistingDirectory(
      m_workbench->dialogParent(), tr("Choose a Study Folder"), m_workbench->runsRoot());
  if (folder.isEmpty()) return;
  if (!QFileInfo::exists(QDir(folder).filePath(QStringLiteral("study.json")))) {
    m_workbench->reportFailure(
        tr("Cannot show the study in “%1”.").arg(QFileInfo(folder).fileName()),
        tr("the folder has no study.json (run a study into it first)"),
        tr("Folder: %1").arg(folder));
    return;
  }
  writeStudyPlots(folder);
  showStudy(folder);
}

StudyView* StudiesFeature::showStudy(const QString& studyFolder) {
  const QString folder = cleanAbsolute(studyFolder);
  const QString key = tabkey::study(folder);
  if (auto* view = m_workbench->tabAs<StudyView>(key)) view->reload();
  m_workbench->showTab(key, tr("Study — %1").arg(QFileInfo(folder).fileName()),
                       [&folder] { return new StudyView(folder); });
  return m_workbench->tabAs<StudyView>(key);
}

}  // namespace strata
