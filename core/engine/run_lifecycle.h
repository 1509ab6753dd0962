#pragma once
// The life of one run in its folder, the same for every recipe: the built-in recipes' training
// loop (engine/training_loop.cpp) and the plugin recipes' host (engine/plugin_training.cpp)
// each own one RunLifecycle for as long as they train, and never write these files themselves:
//
//   run.lock       held from construction to destruction (IoError when another process has it)
//   status.json    running / paused / stopped / finished / failed, the step and the total
//   metrics.jsonl  every record, one flushed line each (metrics_log.h)
//   events.out.tfevents.*  the same records for TensorBoard (tensorboard_writer.h)
//
// Resuming cuts the step logs at the step the run continues after (the steps beyond it will be
// logged again) and rewrites the TensorBoard events from what is left, so no step shows twice.
// Used from one thread at a time (the plugin host serialises its callbacks). No torch here.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>

#include "engine/metrics_log.h"
#include "engine/run_folder.h"
#include "io/writer_lock.h"

namespace strata {

class JobContext;

}  // namespace strata

namespace strata::engine {

class TensorBoardWriter;
class TrainingControl;

/** Which step logs a resume cut shortens. */
enum class StepLogs {
  /** metrics.jsonl and every other *.jsonl of the folder (the built-in recipes' samples.jsonl:
   *  the training loop owns all of them). */
  EveryJsonl,
  /** metrics.jsonl only: the rest of the folder is a plugin recipe's own. */
  MetricsOnly,
};

class RunLifecycle {
 public:
  /** Takes `folder`'s run.lock. Throws IoError naming the folder when another process is
   *  training in it. `totalSteps` is status.json's total (0: unknown). */
  RunLifecycle(std::filesystem::path folder, int64_t totalSteps);
  ~RunLifecycle();
  RunLifecycle(const RunLifecycle&) = delete;
  RunLifecycle& operator=(const RunLifecycle&) = delete;

  /** Before a resumed run writes anything: the temporaries a killed writer left behind. */
  void removeStaleTemporaries();

  /** Opens the step logs for a run that continues after `keptStep` (0: a fresh start): the
   *  logs keep only the steps ≤ keptStep (removed at 0), the TensorBoard events are rewritten
   *  from the metrics kept, and record() appends from here on. */
  void openLogs(int64_t keptStep, StepLogs logs);
  bool logsOpen() const { return m_metrics != nullptr; }
  /** Appends `record` to metrics.jsonl and the TensorBoard events (openLogs first). */
  void record(const MetricsRecord& record);

  /** The step status.json reports from now on. */
  void setStep(int64_t step) { m_step = step; }
  int64_t step() const { return m_step; }
  void writeStatus(RunState state, const std::string& error = {});

  /**
   * Blocks while `control` pauses the run and the job is not cancelled: status.json says
   * paused, the log and the progress line say at which step, then running again. `released`
   * (may be null) is unlocked while it waits. Returns whether it paused.
   */
  bool waitWhilePaused(const TrainingControl& control, JobContext& job,
                       std::unique_lock<std::mutex>* released = nullptr);

  const std::filesystem::path& folder() const { return m_folder; }

 private:
  std::filesystem::path m_folder;
  io::WriterLock m_lock;
  int64_t m_totalSteps = 0;
  int64_t m_step = 0;
  std::unique_ptr<MetricsLogWriter> m_metrics;
  std::unique_ptr<TensorBoardWriter> m_tensorBoard;
};

}  // namespace strata::engine
