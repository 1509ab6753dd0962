// MainWindow, opening things: every open runs its I/O in a background job, and the window
// only ever sees the finished, immutable snapshot (ModelSummary, StoreSummary).

#include <algorithm>

#include <QDir>
#include <QFileInfo>
#include <QStatusBar>
#include <QTabWidget>

#include "clean_path.h"
#include "common/build_info.h"
#include "display_text.h"
#include "io/model_folder.h"
#include "job_controller.h"
#include "job_progress_widget.h"
#include "log_dock.h"
#include "main_window.h"
#include "model_summary_view.h"
#include "store_summary_view.h"

namespace strata {
namespace {

const char* const kPathProperty = "strataPath";

QString displayName(const QString& path) { return QFileInfo(path).fileName(); }

}  // namespace

JobController* MainWindow::startJob(const QString& name, JobWork work, JobDone done) {
  auto* job = new JobController(name, std::move(work), this);
  connect(job, &JobController::messageLogged, m_logDock, &LogDock::appendMessage);
  connect(job, &JobController::finished, this,
          [this, job, done = std::move(done)](JobOutcome outcome, const QString& error) {
            jobEnded(job);
            done(outcome, error);
            if (m_jobs.isEmpty()) emit jobsFinished();
          });
  m_jobs.append(job);
  m_jobProgress->setJob(job);  // the newest job is the one shown, the others in its menu
  m_jobProgress->setOtherJobs(m_jobs.mid(0, m_jobs.size() - 1));
  m_jobProgress->show();
  job->start();
  return job;
}

void MainWindow::jobEnded(JobController* job) {
  m_jobs.removeOne(job);
  job->deleteLater();  // its thread has ended: destruction joins at once
  // Show the newest job still running, if any.
  m_jobProgress->setJob(m_jobs.isEmpty() ? nullptr : m_jobs.last());
  m_jobProgress->setOtherJobs(m_jobs.mid(0, std::max<qsizetype>(m_jobs.size() - 1, 0)));
  m_jobProgress->setVisible(!m_jobs.isEmpty());
}

void MainWindow::reportError(const ErrorReport& report) {
  m_logDock->append(MessageLevel::Error, report.error.isEmpty() ? report.summary : report.error);
  if (m_errorReporter) m_errorReporter(report);
}

void MainWindow::failOpen(const QString& path, const QString& summary, const QString& error) {
  ErrorReport report;
  report.summary = summary;
  report.error = error;
  report.details =
      tr("Path: %1\nError: %2\nStrata %3").arg(path, error, QLatin1String(build::kVersion));
  reportError(report);
  emit openFailed(path, error);
}

void MainWindow::openModelFolder(const QString& folder) {
  openInBackground(cleanAbsolute(folder), tr("model folder"), "reading config and weight headers",
                   [this](const std::filesystem::path& path) -> std::function<void()> {
                     auto summary = std::make_shared<const ModelSummary>(inspectModelFolder(path));
                     return [this, summary] { showModel(summary); };
                   });
}

void MainWindow::openActivationStore(const QString& file) {
  openInBackground(cleanAbsolute(file), tr("activation store"), "reading store metadata",
                   [this](const std::filesystem::path& path) -> std::function<void()> {
                     auto summary = std::make_shared<const StoreSummary>(readStoreSummary(path));
                     return [this, summary] { showStore(summary); };
                   });
}

void MainWindow::openInBackground(const QString& path, const QString& what, const char* stage,
                                  OpenReader read) {
  if (m_opening.contains(path)) return;  // already on its way
  m_opening << path;
  m_logDock->append(MessageLevel::Info, tr("Opening %1 %2").arg(what, path));
  auto show = std::make_shared<std::function<void()>>();
  // Reading a sharded model's headers can take seconds on a network disk: never on this thread.
  JobWork work = [show, read = std::move(read), fsPath = toFsPath(path), stage](JobContext& job) {
    job.progress(-1.0, stage);
    auto ready = read(fsPath);
    job.checkCancelled();  // a cancelled open shows nothing, even when the reading finished
    *show = std::move(ready);
    job.progress(1.0, "done");
  };
  startJob(tr("Opening %1").arg(displayName(path)), std::move(work),
           [this, path, what, show](JobOutcome outcome, const QString& error) {
             m_opening.removeAll(path);
             switch (outcome) {
               case JobOutcome::Succeeded:
                 (*show)();
                 break;
               case JobOutcome::Cancelled:
                 m_logDock->append(MessageLevel::Info, tr("Opening %1 was cancelled").arg(path));
                 break;
               case JobOutcome::Failed:
                 failOpen(path, tr("Could not open the %1 “%2”.").arg(what, displayName(path)),
                          error);
                 break;
             }
           });
}

void MainWindow::showModel(std::shared_ptr<const ModelSummary> summary) {
  const QString path = QDir::cleanPath(toQString(summary->folder));
  const ModelConfig& config = summary->config;
  m_models.insert(path, summary);
  m_projectDock->addEntry(ProjectCategory::Models, path);
  updateActions();
  m_recent.add(path);
  m_logDock->append(MessageLevel::Info,
                    tr("Opened model %1: %2, %3 layers, hidden size %4, %5 parameters")
                        .arg(displayName(path), QString::fromStdString(config.architectureName))
                        .arg(config.numLayers)
                        .arg(config.hiddenSize)
                        .arg(countText(summary->parameterCount)));
  for (const std::string& warning : summary->warnings)
    m_logDock->append(MessageLevel::Warning, QString::fromStdString(warning));
  if (!focusTab(path)) addTab(modelView(path, summary), path, displayName(path));
  showVerificationBadge(path);
  statusBar()->showMessage(tr("Opened %1").arg(path), 5000);
  emit pathOpened(path);
}

void MainWindow::showStore(std::shared_ptr<const StoreSummary> summary) {
  const QString path = QDir::cleanPath(toQString(summary->file));
  m_stores.insert(path, summary);
  m_projectDock->addEntry(ProjectCategory::ActivationStores, path);
  m_recent.add(path);
  m_logDock->append(MessageLevel::Info,
                    tr("Opened activation store %1: %2 tokens, %3 of %4 layers complete")
                        .arg(displayName(path), countText(summary->numTokens))
                        .arg(summary->completedLayers.size())
                        .arg(summary->meta.numLayers + 1));
  if (!focusTab(path)) addTab(new StoreSummaryView(summary), path, displayName(path));
  statusBar()->showMessage(tr("Opened %1").arg(path), 5000);
  emit pathOpened(path);
}

void MainWindow::activateEntry(ProjectCategory category, const QString& path) {
  if (focusTab(path)) return;
  if (category == ProjectCategory::Models && m_models.contains(path))
    addTab(modelView(path, m_models.value(path)), path, displayName(path));
  else if (category == ProjectCategory::ActivationStores && m_stores.contains(path))
    addTab(new StoreSummaryView(m_stores.value(path)), path, displayName(path));
  else
    openPath(path);
}

bool MainWindow::focusTab(const QString& path) {
  for (int i = 0; i < m_tabs->count(); ++i) {
    if (m_tabs->widget(i)->property(kPathProperty).toString() != path) continue;
    m_tabs->setCurrentIndex(i);
    updateCentralPage();
    return true;
  }
  return false;
}

void MainWindow::addTab(QWidget* view, const QString& path, const QString& title) {
  view->setProperty(kPathProperty, path);
  const int index = m_tabs->addTab(view, title);
  m_tabs->setTabToolTip(index, path);
  m_tabs->setCurrentIndex(index);
  updateCentralPage();
}

}  // namespace strata
