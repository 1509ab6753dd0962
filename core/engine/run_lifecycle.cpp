// A run's lock, status, step logs and pause, for every recipe (see run_lifecycle.h).

#include "engine/run_lifecycle.h"

#include <chrono>
#include <thread>

#include "common/error.h"
#include "common/job.h"
#include "engine/tensorboard_writer.h"
#include "engine/training_run.h"
#include "io/atomic_file.h"

namespace strata::engine {

namespace fs = std::filesystem;

namespace {

io::WriterLock lockRun(const fs::path& folder) {
  try {
    return io::WriterLock::forNewFile(RunFolder(folder).lockFile(), true);
  } catch (const io::LockHeldError&) {
    throw IoError(folder, "another process is training in this run folder right now");
  }
}

}  // namespace

RunLifecycle::RunLifecycle(fs::path folder, int64_t totalSteps)
    : m_folder(std::move(folder)), m_lock(lockRun(m_folder)), m_totalSteps(totalSteps) {}

RunLifecycle::~RunLifecycle() = default;

void RunLifecycle::removeStaleTemporaries() { io::removeStaleTemporaries(m_folder); }

void RunLifecycle::openLogs(int64_t keptStep, StepLogs logs) {
  const fs::path metricsFile = RunFolder(m_folder).metricsFile();
  const auto cut = [keptStep](const fs::path& file) {
    if (keptStep > 0)
      truncateMetricsLog(file, keptStep);
    else
      fs::remove(file);
  };
  if (logs == StepLogs::MetricsOnly) {
    cut(metricsFile);
  } else {
    for (const auto& entry : fs::directory_iterator(m_folder))
      if (entry.path().extension() == ".jsonl") cut(entry.path());
  }
  m_tensorBoard = std::make_unique<TensorBoardWriter>(
      rewriteTensorBoard(m_folder, readMetricsLog(metricsFile)));
  m_metrics = std::make_unique<MetricsLogWriter>(metricsFile);
}

void RunLifecycle::record(const MetricsRecord& record) {
  if (!m_metrics) throw Error("internal: a metrics record before the run's logs were opened");
  m_metrics->append(record);
  m_tensorBoard->record(record);
}

void RunLifecycle::writeStatus(RunState state, const std::string& error) {
  RunStatus status;
  status.state = state;
  status.step = m_step;
  status.totalSteps = m_totalSteps;
  status.error = error;
  writeRunStatus(m_folder, status);
}

bool RunLifecycle::waitWhilePaused(const TrainingControl& control, JobContext& job,
                                   std::unique_lock<std::mutex>* released) {
  if (!control.paused() || job.cancelled()) return false;
  writeStatus(RunState::Paused);
  const double done =
      m_totalSteps > 0 ? static_cast<double>(m_step) / static_cast<double>(m_totalSteps) : -1.0;
  const std::string at =
      std::to_string(m_step) + (m_totalSteps > 0 ? "/" + std::to_string(m_totalSteps) : "");
  job.info("paused at step " + std::to_string(m_step));
  // The progress line says so too (the GUI's status bar, the terminal's bar).
  job.progress(done, "paused at step " + at);
  if (released) released->unlock();  // the trainer is blocked here; nothing else of it calls in
  while (control.paused() && !job.cancelled())
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (released) released->lock();
  writeStatus(RunState::Running);
  if (!job.cancelled()) {
    job.info("resumed");
    job.progress(done, "step " + at);
  }
  return true;
}

}  // namespace strata::engine
