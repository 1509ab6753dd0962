#pragma once
// BackgroundJobs: the window's running jobs. Every job of the window starts here (through
// Workbench::startJob), so "is anything running" has one answer: the job is listed from start
// until its `done` has run, shown in the status bar's JobProgressWidget (the newest, the others
// in its menu), and its messages go to the log dock. GUI thread only; the controllers are its
// children, and destroying it cancels and joins whatever still runs.

#include <QList>
#include <QObject>
#include <functional>

#include "common/job.h"

namespace strata {

class JobController;
class JobProgressWidget;
class LogDock;

class BackgroundJobs final : public QObject {
  Q_OBJECT

 public:
  using Done = std::function<void(JobOutcome, const QString& error)>;

  BackgroundJobs(LogDock& log, JobProgressWidget& progress, QObject* parent = nullptr);
  ~BackgroundJobs() override;

  /** Starts `work`; `done` (may be empty) runs when it ended, then the controller is deleted
   *  later. Others may connect to the returned controller's signals meanwhile. */
  JobController* start(const QString& name, JobWork work, Done done);
  bool empty() const { return m_jobs.isEmpty(); }
  /** The newest running job (the one the status bar shows), or nullptr. */
  JobController* newest() const { return m_jobs.isEmpty() ? nullptr : m_jobs.last(); }
  /** Asks every running job to stop; returns at once. */
  void cancelAll();

 signals:
  /** The last running job has ended (empty() is true now). */
  void allFinished();

 private:
  void ended(JobController* job);

  LogDock& m_log;
  JobProgressWidget& m_progress;
  QList<JobController*> m_jobs;  ///< running, oldest first
};

}  // namespace strata
