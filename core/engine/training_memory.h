#pragma once
// How much memory a training run will need, decided before its models are built: the trained
// model's float32 weights, their gradients and AdamW's two moments, what a step keeps for its
// backward pass, and a frozen model run beside it (repr_align's teacher, the bridge's source).
// Compared with what the machine has, as capture's plan is (engine/memory_plan.h): a run that
// would not fit is refused before anything is loaded, with a message that says what is needed,
// what is available and what to change; the frozen model streams its layers when only that fits.
//
// Torch-free: recipes fill the request from their settings and model headers.

#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <utility>

#include "engine/memory_plan.h"

namespace strata {

class JobContext;

}  // namespace strata

namespace strata::engine {

/** A run's memory plan, without the run (engine/training_run.h: planTraining). */
struct TrainingPlanPreview {
  std::string plan;     ///< the "training memory plan: …" line the run's log would start with
  bool fits = false;    ///< the run would start on this machine now
  std::string refusal;  ///< what the run would be refused with (when !fits)
};

/** Thrown where a run started by planTraining (engine/training_run.h) reaches its memory plan:
 *  the run stops there, before anything is loaded, and planTraining returns the preview. */
class PlanReached : public std::exception {
 public:
  explicit PlanReached(TrainingPlanPreview preview) : preview(std::move(preview)) {}
  const char* what() const noexcept override { return "the run's memory was planned"; }
  TrainingPlanPreview preview;
};

/** The transformer a recipe trains, as far as its memory goes. */
struct TrainedShape {
  int64_t parameters = 0;  ///< every parameter (float32)
  int64_t trainable = 0;   ///< those AdamW updates: a gradient and two moments each
  int64_t layers = 0;
  int64_t width = 0;           ///< the residual stream
  int64_t attentionWidth = 0;  ///< heads × head size of the queries (0: width)
  int64_t keyValueWidth = 0;   ///< key/value heads × head size (0: attentionWidth)
  int64_t heads = 1;
  int64_t mlpWidth = 0;
  bool gatedMlp = true;        ///< SwiGLU's gate and up (else one projection and its activation)
  int attentionsPerLayer = 1;  ///< 2 with cross-attention
  /** The attention's softmax is kept for backward (T² a head and layer), not only the fused
   *  kernel's row statistics: where the mask itself is trained (DCDM's order bias) or the
   *  attention is written out (the bridge's denoiser). */
  bool attentionScoresKept = false;
  /** Sequences the blocks read side by side for each input: 2 in block diffusion, whose
   *  noisy and clean copies attend to each other (model/diffusion/dcdm_transformer.h). */
  int sequenceStreams = 1;
  int64_t outputWidth = 0;  ///< what the loss reads per token: the vocabulary, or a denoiser's d
};

/** What a run will do with it. */
struct TrainingMemoryRequest {
  TrainedShape model;
  int64_t rows = 16;             ///< sequences per micro-batch on this process
  int64_t sequenceLength = 128;  ///< tokens per sequence the model reads
  bool bf16 = false;             ///< bf16 autocast of the forward pass
  bool cuda = false;
  int64_t vocabulary = 0;  ///< the tokenizer's (the process's tables grow with it)
  /** A frozen model run on each micro-batch beside the trained one (its own capture-style
   *  request: batch, sequence length, compute dtype). */
  std::optional<MemoryRequest> frozen;
  /** Bytes a token of the micro-batch makes the loss hold besides the trained model's own
   *  values: e.g. the teacher's hidden states that repr_align aligns the student's with. */
  int64_t lossBytesPerToken = 0;
  /** Processes of this run that share the machine's memory, each with its own copy of all of
   *  the above (`strata-cli train --nproc N` on one machine). */
  int processes = 1;
};

struct TrainingMemoryPlan {
  int64_t weights = 0;         ///< the trained model in float32 (+ autocast's bf16 copies)
  int64_t gradients = 0;       ///< float32, trainable parameters only
  int64_t optimizerState = 0;  ///< AdamW's two moments, float32
  int64_t activations = 0;     ///< what one micro-batch keeps for backward, and its loss
  int64_t frozenWeights = 0;   ///< the frozen model, resident or streamed
  int64_t frozenActivations = 0;
  /** A checkpoint is serialised in memory before it is written (engine/training_checkpoint.h):
   *  the larger of the model's and AdamW's states, twice, while a stream grows. Not at the same
   *  time as a step's activations. */
  int64_t checkpoint = 0;
  bool frozenStreams = false;  ///< the frozen model must stream its layers
  int64_t fixedCost = 0;       ///< the process itself
  int processes = 1;           ///< processes sharing the memory, each needing all of this
  int64_t available = 0;
  bool fits = false;
  std::string device;  ///< "memory" or "GPU memory"

  /** What one process needs (× processes for the machine). */
  int64_t needed() const;
  /** One paragraph for the run's log: "training memory plan: …". */
  std::string describe() const;
  /** Why the run cannot start and what to change (only when !fits). */
  std::string refusal() const;
};

/** The trained shape of a pretrained model (its config and header's parameter count), every
 *  parameter trainable: the recipe subtracts what it freezes. */
TrainedShape trainedShapeOf(const io::ModelConfig& config, int64_t parameters);

/** Plans `request` against `availableBytes` (of which kUsableShare may be used). */
TrainingMemoryPlan planTrainingMemory(const TrainingMemoryRequest& request, int64_t availableBytes);

/** Plans against what is available now (availableMemory), reports the plan through `job` and
 *  throws MemoryError with its refusal when the run does not fit. */
TrainingMemoryPlan checkTrainingMemory(const TrainingMemoryRequest& request, JobContext* job,
                                       int deviceIndex = 0);

/** A plugin recipe's own count (StrataRecipeHost::plan_memory): `bytes` besides the process,
 *  made of `parts`, against the host memory available now. Reports the plan, "training memory
 *  plan: plugin recipe NAME: PARTS; process P — needs N of A available memory: fits", through
 *  `job`; the refusal ends in `advice`. */
TrainingPlanPreview planPluginRecipeMemory(const std::string& recipe, int64_t bytes,
                                           const std::string& parts, const std::string& advice,
                                           JobContext* job);

}  // namespace strata::engine
