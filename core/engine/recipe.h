#pragma once
// What a training recipe gives the training loop (engine/training_loop.cpp): a model and its
// data, a loss per micro-batch, an evaluation, and any state of its own. The loop owns
// everything generic — optimizer, schedule, accumulation, clipping, precision, distribution,
// logging, checkpoints, resume — so each recipe is only its science.
//
// Determinism contract: microBatchLoss(slice) must depend only on the model, the config and
// the slice (use the seed and the step/micro/row numbers to draw data, e.g. SplitMix64, and
// torch's global generator only for draws the loop's RNG checkpoint restores). Then a resumed
// run repeats the uninterrupted one exactly.

#include <torch/torch.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "engine/config_schema.h"
#include "engine/training_memory.h"

namespace strata {

class JobContext;

}  // namespace strata

namespace strata::engine {

struct RecipeSetup {
  const ResolvedConfig& config;
  std::filesystem::path runFolder;
  torch::Device device;
  int rank = 0;  ///< this process in data-parallel training
  int worldSize = 1;
  bool bf16 = false;      ///< the loop runs the forward passes under bf16 autocast
  int processesHere = 1;  ///< this run's processes sharing this machine's (or device's) memory
  bool planOnly = false;  ///< planTraining: checkMemory reports the plan and stops the run

  /** Completes `need` with what the loop decides (this process's share of `batch` sequences
   *  of `sequenceLength` tokens, bf16, the device; a frozen model's batch and length when 0)
   *  and checks it against the memory available (engine/training_memory.h): throws
   *  MemoryError with what to change when the run cannot fit. Recipes call it before they
   *  load or build any model. With planOnly it throws PlanReached with the plan, fitting or
   *  not. */
  TrainingMemoryPlan checkMemory(TrainingMemoryRequest need, int64_t batch, int64_t sequenceLength,
                                 JobContext& job) const;
};

struct ParameterGroup {
  std::vector<torch::Tensor> parameters;
  double weightDecay = 0;
};

/** Rows [firstRow, firstRow + rows) of micro-batch `micro` of optimizer step `step` (1-based).
 *  One micro-batch has config "batch" rows over all ranks; a rank gets its share. */
struct BatchSlice {
  int64_t step = 1;
  int64_t micro = 0;
  int64_t firstRow = 0;
  int64_t rows = 0;
};

struct MicroBatchResult {
  torch::Tensor loss;  ///< scalar, mean over the slice, with grad
  int64_t tokens = 0;  ///< tokens processed (throughput)
  /** Extra per-step values, logged as means: scalars left where they were computed (the loop
   *  reads them at logging steps, so a recipe never makes the host wait for the GPU). A loss
   *  with terms evaluation leaves out adds the rest as kTaskLossMetric (metrics_log.h). */
  std::map<std::string, torch::Tensor> metrics;
};

using Metrics = std::map<std::string, double>;

class Recipe {
 public:
  virtual ~Recipe() = default;
  /** Reads the data and builds the model on setup.device (weights from torch's global RNG,
   *  already seeded). Throws ConfigError / FormatError for bad settings or data. */
  virtual void build(const RecipeSetup& setup, JobContext& job) = 0;
  /** The module whose state checkpoints save (its parameters and buffers). */
  virtual torch::nn::Module& model() = 0;
  /** The trainable parameters, grouped by weight decay (weightDecay is a multiplier of the
   *  config's weight_decay: 1 for matrices, 0 for norms and biases, usually). */
  virtual std::vector<ParameterGroup> parameterGroups() = 0;
  virtual MicroBatchResult microBatchLoss(const BatchSlice& slice) = 0;
  /** Validation metrics at optimizer step `step` (no grad, model in eval mode). "loss" (logged
   *  as val_loss), when present, picks the best checkpoint. */
  virtual Metrics evaluate(int64_t step) = 0;
  /** Recipe state beyond the model (e.g. running statistics), in `folder`; names the files. */
  virtual std::vector<std::string> saveExtraState(const std::filesystem::path& /*folder*/) {
    return {};
  }
  virtual void restoreExtraState(const std::filesystem::path& /*folder*/) {}
  /** Called once after the last step on rank 0: write artefacts (a Hugging Face folder...). */
  virtual void finish(const std::filesystem::path& /*runFolder*/, JobContext& /*job*/) {}
  /** Facts worth recording in run.json (corpus hash, token counts, parameter count). */
  virtual std::map<std::string, std::string> description() const { return {}; }
};

}  // namespace strata::engine
