#pragma once
// What a training checkpoint holds and how the loop writes and reads it: the model's state,
// the optimizer's (AdamW moments and step counts), torch's default random generators (the CPU's,
// and the CUDA device's on a GPU: engine/generator_states.h), the recipe's
// own state and the loop's counters (state.json: step, best validation loss, the metrics
// interval in progress). Internal to the training loop.

#include <torch/torch.h>

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>

#include "engine/checkpoint_store.h"
#include "engine/recipe.h"

namespace strata {

class JobContext;

}  // namespace strata

namespace strata::engine {

/** The loop's own state, checkpointed with the model so a resumed run logs what the
 *  uninterrupted one would have. */
struct LoopCounters {
  int64_t step = 0;
  double bestValLoss = std::numeric_limits<double>::infinity();
  int64_t bestStep = -1;
  // The metrics interval in progress (logged as means at the next log step).
  double intervalLoss = 0;
  int64_t intervalSteps = 0;
  int64_t intervalTokens = 0;
  /** Seconds of training in the interval so far, pauses left out: with intervalTokens, the
   *  interval's tokens_per_s, even when a resume splits it. */
  double intervalSeconds = 0;
  std::map<std::string, double> intervalMetrics;
  /** Seconds the run has spent training up to `step`, pauses and the time between a stop and
   *  its resume left out (logged as train_seconds). */
  double trainSeconds = 0;
};

void saveTrainingCheckpoint(const CheckpointStore& store, const LoopCounters& counters,
                            Recipe& recipe, torch::optim::Optimizer& optimizer, at::Device device,
                            bool isBest, int64_t keepLast);

/** Restores the newest checkpoint that verifies and loads, skipping damaged ones with a
 *  warning; nullopt when there is none. `device` is the resumed run's. */
std::optional<LoopCounters> loadNewestTrainingCheckpoint(const CheckpointStore& store,
                                                         Recipe& recipe,
                                                         torch::optim::Optimizer& optimizer,
                                                         at::Device device, JobContext& job);

}  // namespace strata::engine
