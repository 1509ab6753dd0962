#include "job_controller.h"

#include <QMetaObject>

#include "common/error.h"

namespace strata {

JobController::JobController(QString name, JobWork work, QObject* parent)
    : QObject(parent), m_name(std::move(name)), m_work(std::move(work)) {
  m_throttle.setSingleShot(true);
  connect(&m_throttle, &QTimer::timeout, this, &JobController::emitLatestProgress);
}

JobController::~JobController() {
  // Join before any member the worker touches (the mutex, the sink state) is destroyed.
  if (m_job) {
    m_job->cancel();
    m_job.reset();
  }
}

void JobController::start() {
  if (m_job) throw Error("job '" + m_name.toStdString() + "' was already started");
  m_job = std::make_unique<BackgroundJob>(
      m_name.toStdString(), m_work, *this, [this](const JobResult& result) {
        QMetaObject::invokeMethod(
            this, [this, result] { finish(result); }, Qt::QueuedConnection);
      });
  m_running = true;
  m_sinceLastEmit.invalidate();
  m_started.start();
  m_job->start();
}

void JobController::cancel() {
  if (m_job) m_job->cancel();
}

bool JobController::cancelRequested() const { return m_job && m_job->token().cancelled(); }

void JobController::progress(double fraction, const std::string& stage) {
  std::lock_guard lock(m_mutex);
  m_fraction = fraction;
  m_stage = stage;
  m_progressDirty = true;
  // One wake-up per emitted signal at most: the worker may report a million times a second
  // without flooding the GUI thread's event queue.
  if (m_wakePosted) return;
  m_wakePosted = true;
  QMetaObject::invokeMethod(this, &JobController::deliverProgress, Qt::QueuedConnection);
}

void JobController::message(MessageLevel level, const std::string& text) {
  QMetaObject::invokeMethod(
      this,
      [this, level, line = QString::fromStdString(text)] {
        emit messageLogged(static_cast<int>(level), line);
      },
      Qt::QueuedConnection);
}

void JobController::deliverProgress() {
  const auto interval = m_interval.count();
  if (m_sinceLastEmit.isValid() && m_sinceLastEmit.elapsed() < interval) {
    if (!m_throttle.isActive())
      m_throttle.start(static_cast<int>(interval - m_sinceLastEmit.elapsed()));
    return;
  }
  emitLatestProgress();
}

void JobController::emitLatestProgress() {
  double fraction = 0.0;
  QString stage;
  {
    std::lock_guard lock(m_mutex);
    m_wakePosted = false;
    if (!m_progressDirty) return;
    m_progressDirty = false;
    fraction = m_fraction;
    stage = QString::fromStdString(m_stage);
  }
  m_sinceLastEmit.start();
  m_shownFraction = fraction;
  m_shownStage = stage;
  emit progressChanged(fraction, stage);
}

void JobController::finish(const JobResult& result) {
  m_throttle.stop();
  emitLatestProgress();  // the final state is always delivered, before finished()
  m_running = false;
  emit finished(result.outcome, QString::fromStdString(result.error));
}

}  // namespace strata
