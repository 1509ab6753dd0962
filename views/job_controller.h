#pragma once
// JobController: the GUI's side of a core BackgroundJob. It is the job's ProgressSink and turns
// the worker's reports into Qt signals emitted on the controller's (GUI) thread.
//
// Threading: construct, start(), cancel() and destroy on the GUI thread. progress()/message()
// run on the worker thread and only touch state behind m_mutex, then post to the GUI thread.
// Progress is coalesced: at most one progressChanged per interval (default 100 ms, ~10 Hz); the
// latest state always wins and is flushed before finished(). Messages are never dropped.
// Ownership: the controller owns the job. Destroying a running controller cancels the job and
// joins its thread (this waits until the work next checks cancellation); events it had already
// posted die with it, so no signal ever reaches a dead receiver.

#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QTimer>
#include <chrono>
#include <memory>
#include <mutex>

#include "common/job.h"

namespace strata {

class JobController final : public QObject, public ProgressSink {
  Q_OBJECT

 public:
  JobController(QString name, JobWork work, QObject* parent = nullptr);
  ~JobController() override;

  /** Starts the worker. Throws strata::Error when called twice. */
  void start();
  /** Asks the job to stop at its next checkCancelled(); returns at once. */
  void cancel();
  /** True from start() until finished() has been emitted. */
  bool running() const { return m_running; }
  bool cancelRequested() const;
  const QString& name() const { return m_name; }
  /** Milliseconds since start() (0 before it). */
  qint64 elapsedMs() const { return m_started.isValid() ? m_started.elapsed() : 0; }
  /** The last progressChanged's fraction (negative: unknown, as before the first report) and
   *  stage, for a view that starts following a job already running. */
  double lastFraction() const { return m_shownFraction; }
  const QString& lastStage() const { return m_shownStage; }

  /** Minimum time between two progressChanged signals (coalescing window). */
  void setProgressInterval(std::chrono::milliseconds interval) { m_interval = interval; }

  // ProgressSink, called on the worker thread.
  void progress(double fraction, const std::string& stage) override;
  void message(MessageLevel level, const std::string& text) override;

 signals:
  /** fraction in [0, 1], or negative for "busy, amount unknown". */
  void progressChanged(double fraction, const QString& stage);
  /** level is a strata::MessageLevel cast to int. */
  void messageLogged(int level, const QString& text);
  /** Emitted once, last. error is empty unless outcome == Failed. */
  void finished(strata::JobOutcome outcome, const QString& error);

 private:
  void deliverProgress();  // GUI thread: emit now or arm the throttle timer
  void emitLatestProgress();
  void finish(const JobResult& result);

  QString m_name;
  JobWork m_work;
  std::unique_ptr<BackgroundJob> m_job;
  bool m_running = false;
  std::chrono::milliseconds m_interval{100};
  QTimer m_throttle;
  QElapsedTimer m_sinceLastEmit;
  QElapsedTimer m_started;
  double m_shownFraction = -1.0;  ///< GUI thread: what progressChanged last said
  QString m_shownStage;

  // Shared with the worker thread.
  mutable std::mutex m_mutex;
  double m_fraction = 0.0;
  std::string m_stage;
  bool m_progressDirty = false;
  bool m_wakePosted = false;  ///< a deliverProgress() is queued or the throttle is armed
};

}  // namespace strata

Q_DECLARE_METATYPE(strata::JobOutcome)
