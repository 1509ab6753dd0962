#include "background_jobs.h"

#include <algorithm>

#include "common/memory_release.h"
#include "job_controller.h"
#include "job_progress_widget.h"
#include "log_dock.h"

namespace strata {

BackgroundJobs::BackgroundJobs(LogDock& log, JobProgressWidget& progress, QObject* parent)
    : QObject(parent), m_log(log), m_progress(progress) {}

// Running controllers are children: they cancel and join as they are destroyed.
BackgroundJobs::~BackgroundJobs() { cancelAll(); }

void BackgroundJobs::cancelAll() {
  for (JobController* job : m_jobs) job->cancel();
}

JobController* BackgroundJobs::start(const QString& name, JobWork work, Done done) {
  auto* job = new JobController(name, std::move(work), this);
  connect(job, &JobController::messageLogged, &m_log, &LogDock::appendMessage);
  connect(job, &JobController::finished, this,
          [this, job, done = std::move(done)](JobOutcome outcome, const QString& error) {
            ended(job);
            if (done) done(outcome, error);
            if (!m_jobs.isEmpty()) return;
            // What the jobs loaded and freed (models, batches) goes back to the system: the
            // window keeps only what it shows (common/memory_release.h).
            releaseFreedMemory();
            emit allFinished();
          });
  m_jobs.append(job);
  m_progress.setJob(job);  // the newest job is the one shown, the others in its menu
  m_progress.setOtherJobs(m_jobs.mid(0, m_jobs.size() - 1));
  m_progress.show();
  job->start();
  return job;
}

void BackgroundJobs::ended(JobController* job) {
  m_jobs.removeOne(job);
  job->deleteLater();  // its thread has ended: destruction joins at once
  // Show the newest job still running, if any.
  m_progress.setJob(m_jobs.isEmpty() ? nullptr : m_jobs.last());
  m_progress.setOtherJobs(m_jobs.mid(0, std::max<qsizetype>(m_jobs.size() - 1, 0)));
  m_progress.setVisible(!m_jobs.isEmpty());
}

}  // namespace strata
