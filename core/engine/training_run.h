#pragma once
// Starting and resuming a training run: the one entry point the CLI, the GUI and the tests
// use, whatever the recipe; each run goes to its recipe's runner (engine/recipe_catalog.h). The
// built-in recipes' loop (engine/training_loop.cpp) is seeded,
// device-aware, accumulates gradients, clips them, steps AdamW on a warm-up + cosine schedule,
// evaluates every n steps, checkpoints atomically, and resumes exactly. No torch here.

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/config_schema.h"
#include "engine/training_memory.h"

namespace strata {

class JobContext;

}  // namespace strata

namespace strata::engine {

/** Data-parallel placement of this process (world size 1 = a single process). */
struct DistributedSetup {
  int rank = 0;
  int worldSize = 1;
  std::string masterAddress = "127.0.0.1";
  int masterPort = 29500;
  bool active() const { return worldSize > 1; }
};

/** Whether `address` names this machine's loopback (the processes of `--nproc`). */
bool isLoopbackAddress(const std::string& address);

/** Pause / resume requests from another thread (the GUI's Pause button). Copies share state. */
class TrainingControl {
 public:
  TrainingControl() : m_paused(std::make_shared<std::atomic<bool>>(false)) {}
  void pause() { m_paused->store(true); }
  void resume() { m_paused->store(false); }
  bool paused() const { return m_paused->load(); }

 private:
  std::shared_ptr<std::atomic<bool>> m_paused;
};

struct TrainingRequest {
  std::string recipe;
  ResolvedConfig config;            ///< validated against the recipe's schema by startTraining
  std::filesystem::path runFolder;  ///< created; must not already hold a run
  std::string command;              ///< recorded in run.json
  DistributedSetup distributed;
  TrainingControl control;
  /** Set by planTraining: the run stops at its memory plan, before anything is loaded (with
   *  `distributed`, the plan of rank 0 of that many processes on this machine). */
  bool planOnly = false;
};

/** What resumeTraining continues, and how. */
struct ResumeRequest {
  std::filesystem::path runFolder;
  DistributedSetup distributed;
  TrainingControl control;
  std::vector<std::string> overrides;  ///< "key=value", settings that keep the trajectory
};

struct TrainingSummary {
  int64_t startStep = 0;  ///< > 0 when resumed
  int64_t lastStep = 0;
  int64_t totalSteps = 0;
  bool finished = false;                      ///< false when stopped early (stop_after)
  std::map<std::string, double> lastMetrics;  ///< the newest value of every logged metric
  double seconds = 0;
};

/**
 * Trains from step 0 into a new run folder. Cancellation (job.checkCancelled) checkpoints the
 * last finished step, marks the run Stopped and throws CancelledError. Throws ConfigError for
 * a bad config, IoError when the folder holds a run or is locked by another process.
 */
TrainingSummary startTraining(const TrainingRequest& request, JobContext& job);

/**
 * Plans `request`'s memory as startTraining would, against what this machine has now, and
 * stops there: the recipe reads what its plan needs (settings, model headers, the tokenizer)
 * in a temporary run folder that is removed afterwards; no corpus is read and no model is
 * built. A `distributed` request plans rank 0 of its processes, all on this machine (`--nproc`):
 * each with its share of the batch, the machine's memory shared by all. Throws ConfigError for
 * a bad config or a request that spans machines, Error when the recipe cannot plan its memory
 * (a plugin built for ABI 1, or one that never calls plan_memory).
 */
TrainingPlanPreview planTraining(TrainingRequest request, JobContext& job);

/**
 * Continues the run in `runFolder` from its newest valid checkpoint (verified; a damaged one
 * is skipped with a warning) with the recipe and config of its run.json. On the CPU the
 * continued run is bit-for-bit the uninterrupted one. `overrides` may change only settings
 * that do not alter the trajectory (steps, eval/log/checkpoint cadence, threads, device).
 */
TrainingSummary resumeTraining(const std::filesystem::path& runFolder, JobContext& job,
                               const DistributedSetup& distributed = {},
                               const TrainingControl& control = {},
                               const std::vector<std::string>& overrides = {});

}  // namespace strata::engine
