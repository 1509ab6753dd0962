#pragma once
// Background jobs: every long piece of work (opening a model, capture, scoring, training) is a
// function of a JobContext that reports progress and checks for cancellation. The CLI prints
// the reports on the terminal, the GUI turns them into queued signals, tests record them.

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>

namespace strata {

enum class MessageLevel { Info, Warning, Error };

/**
 * Receives a job's reports. Called from the job's worker thread: implementations must be
 * thread-safe with respect to whoever reads what they record.
 */
class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  /** fraction in [0, 1]; a negative fraction means "busy, amount unknown". */
  virtual void progress(double fraction, const std::string& stage) = 0;
  virtual void message(MessageLevel level, const std::string& text) = 0;
};

/** A sink that drops everything, for work run without an observer. */
class NullProgressSink final : public ProgressSink {
 public:
  void progress(double, const std::string&) override {}
  void message(MessageLevel, const std::string&) override {}
};

/**
 * Cooperative cancellation shared between the requester (any thread) and the job. Copies
 * share one flag.
 */
class CancellationToken {
 public:
  CancellationToken() : m_flag(std::make_shared<std::atomic<bool>>(false)) {}
  void cancel() { m_flag->store(true, std::memory_order_relaxed); }
  bool cancelled() const { return m_flag->load(std::memory_order_relaxed); }
  /** Throws CancelledError when cancellation was requested. */
  void throwIfCancelled() const;

 private:
  std::shared_ptr<std::atomic<bool>> m_flag;
};

/** What a running job sees: where to report, and whether to stop. */
class JobContext {
 public:
  JobContext(ProgressSink& sink, CancellationToken token)
      : m_sink(sink), m_token(std::move(token)) {}
  void progress(double fraction, const std::string& stage) { m_sink.progress(fraction, stage); }
  void info(const std::string& text) { m_sink.message(MessageLevel::Info, text); }
  void warning(const std::string& text) { m_sink.message(MessageLevel::Warning, text); }
  /** Call between units of work (a batch, a layer, a tensor). Throws CancelledError. */
  void checkCancelled() const { m_token.throwIfCancelled(); }
  bool cancelled() const { return m_token.cancelled(); }
  const CancellationToken& token() const { return m_token; }

 private:
  ProgressSink& m_sink;
  CancellationToken m_token;
};

enum class JobOutcome { Succeeded, Failed, Cancelled };

struct JobResult {
  JobOutcome outcome = JobOutcome::Succeeded;
  std::string error;  ///< what() of the exception when outcome == Failed
};

using JobWork = std::function<void(JobContext&)>;

/** Runs `work` on the calling thread, turning exceptions into a JobResult. */
JobResult runJob(const JobWork& work, ProgressSink& sink, const CancellationToken& token);

/**
 * One job on its own worker thread. Exceptions never cross the thread: the worker catches
 * them and reports a Failed result to `onFinished` (called on the worker thread, last).
 * The sink must outlive the job. Destroying a running job cancels it and joins the thread.
 */
class BackgroundJob {
 public:
  BackgroundJob(std::string name, JobWork work, ProgressSink& sink,
                std::function<void(const JobResult&)> onFinished = {});
  ~BackgroundJob();
  BackgroundJob(const BackgroundJob&) = delete;
  BackgroundJob& operator=(const BackgroundJob&) = delete;

  void start();
  void cancel() { m_token.cancel(); }
  /** Blocks until the worker has finished (no-op when never started). */
  void wait();
  bool running() const { return m_running.load(); }
  const std::string& name() const { return m_name; }
  const CancellationToken& token() const { return m_token; }

 private:
  std::string m_name;
  JobWork m_work;
  ProgressSink& m_sink;
  std::function<void(const JobResult&)> m_onFinished;
  CancellationToken m_token;
  std::atomic<bool> m_running{false};
  std::thread m_thread;
};

}  // namespace strata
