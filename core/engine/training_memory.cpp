#include "engine/training_memory.h"

#include <algorithm>
#include <sstream>

#include "common/human_format.h"
#include "common/job.h"

namespace strata::engine {

namespace {

// What the process holds during a step beyond the values counted below: malloc's heap keeps
// freed blocks that the next step's requests do not fit exactly, and autograd's working buffers.
// Measured 0–37 % of the counted activations over the built-in recipes' second and later steps
// (docs/training.md, "Memory"); a fifth keeps every measured peak within ±20 % of its plan.
constexpr int64_t kAllocatorShareDivisor = 5;

/** Values a block keeps for backward per token (in elements of the autocast dtype). */
int64_t keptPerToken(const TrainedShape& m) {
  const int64_t attention = m.attentionWidth > 0 ? m.attentionWidth : m.width;
  const int64_t keyValue = m.keyValueWidth > 0 ? m.keyValueWidth : attention;
  // Two norms, each keeping its input and output; queries, keys and values, the rotated
  // queries and keys, the attention's output before and after its heads are merged; the MLP's
  // gate, up, activation and product (SwiGLU) or its projection and activation.
  return 4 * m.width + m.attentionsPerLayer * (4 * attention + 3 * keyValue) +
         (m.gatedMlp ? 4 : 2) * m.mlpWidth;
}

/** What one micro-batch's forward keeps for backward, and the backward's own working set. */
int64_t stepActivations(const TrainingMemoryRequest& r) {
  const TrainedShape& m = r.model;
  const int64_t tokens = r.rows * r.sequenceLength;
  const int64_t length = r.sequenceLength * std::max(m.sequenceStreams, 1);  // what blocks read
  // Under bf16 autocast the products' inputs and outputs are kept in bf16; norms, softmax and
  // the loss stay float32.
  const int64_t element = r.bf16 ? 2 : 4;
  const int64_t perLayer = r.rows * length * keptPerToken(m);
  // Every layer's kept values, plus the gradients of one layer's in flight during backward.
  const int64_t layers = std::max<int64_t>(m.layers, 1);
  int64_t bytes = (layers + 2) * perLayer * element;
  // The softmax of every layer, float32, and one layer's scores and masked scores in flight.
  if (m.attentionScoresKept)
    bytes += (layers + 2) * m.attentionsPerLayer * r.rows * m.heads * length * length * 4;
  // The output and the loss, float32: the logits (or prediction), their log-softmax, and its
  // gradient.
  bytes += tokens * m.outputWidth * 4 * 3;
  bytes += tokens * r.lossBytesPerToken;
  return bytes + bytes / kAllocatorShareDivisor;
}

}  // namespace

TrainedShape trainedShapeOf(const io::ModelConfig& c, int64_t parameters) {
  TrainedShape shape;
  shape.parameters = parameters;
  shape.trainable = parameters;
  shape.layers = c.numLayers;
  shape.width = c.hiddenSize;
  shape.heads = std::max<int64_t>(c.numHeads, 1);
  const int64_t headDim = c.headDim > 0 ? c.headDim : c.hiddenSize / shape.heads;
  shape.attentionWidth = shape.heads * headDim;
  shape.keyValueWidth = (c.numKeyValueHeads > 0 ? c.numKeyValueHeads : shape.heads) * headDim;
  shape.mlpWidth = c.intermediateSize > 0 ? c.intermediateSize : 4 * c.hiddenSize;
  shape.gatedMlp =
      c.architecture != io::Architecture::Gpt2 && c.architecture != io::Architecture::GptNeoX;
  shape.outputWidth = c.vocabSize;
  return shape;
}

int64_t TrainingMemoryPlan::needed() const {
  return fixedCost + weights + gradients + optimizerState + frozenWeights +
         std::max(activations + frozenActivations, checkpoint);
}

std::string TrainingMemoryPlan::describe() const {
  std::ostringstream out;
  out << "training memory plan: weights " << formatBytes(weights) << ", gradients "
      << formatBytes(gradients) << ", AdamW moments " << formatBytes(optimizerState)
      << ", a step's activations " << formatBytes(activations);
  if (frozenWeights > 0 || frozenActivations > 0)
    out << "; frozen model " << formatBytes(frozenWeights + frozenActivations)
        << (frozenStreams ? " (streaming its layers)" : "");
  out << "; process " << formatBytes(fixedCost) << " — needs " << formatBytes(needed());
  if (processes > 1)
    out << " a process, " << formatBytes(processes * needed()) << " for its " << processes;
  out << " of " << formatBytes(available) << " available " << device;
  out << (fits ? ": fits" : ": does not fit");
  return out.str();
}

std::string TrainingMemoryPlan::refusal() const {
  std::ostringstream out;
  out << "this training run needs about " << formatBytes(processes * needed()) << " of " << device
      << (processes > 1 ? " (" + std::to_string(processes) + " processes, each with " : " (")
      << "the trained model " << formatBytes(weights) << ", its gradients "
      << formatBytes(gradients) << " and AdamW's moments " << formatBytes(optimizerState)
      << ", a step's activations " << formatBytes(activations);
  if (frozenWeights > 0 || frozenActivations > 0)
    out << ", the frozen model " << formatBytes(frozenWeights + frozenActivations)
        << (frozenStreams ? " with its layers streamed" : "");
  out << ", the process " << formatBytes(fixedCost) << ") but only " << formatBytes(available)
      << " is available. " << (processes > 1 ? "Use fewer processes (--nproc), a" : "Use a")
      << " smaller batch or seq_len (with grad_accum to keep the tokens "
         "per step: the activations grow with both), precision=bf16 to halve the "
         "activations, freeze part of the model, or train on a device with more memory";
  return out.str();
}

TrainingMemoryPlan planTrainingMemory(const TrainingMemoryRequest& r, int64_t availableBytes) {
  const TrainedShape& m = r.model;
  TrainingMemoryPlan plan;
  plan.device = r.cuda ? "GPU memory" : "memory";
  plan.available = availableBytes;
  plan.processes = std::max(r.processes, 1);
  const int64_t vocabulary =
      std::max(r.vocabulary, r.frozen ? r.frozen->config.vocabSize : int64_t{0});
  plan.fixedCost = processCost(vocabulary, r.cuda);
  // Float32 weights; autocast keeps a bf16 copy of each trained matrix for the step.
  plan.weights = m.parameters * (r.bf16 ? 4 + 2 : 4);
  plan.gradients = m.trainable * 4;
  plan.optimizerState = m.trainable * 8;
  plan.activations = stepActivations(r);
  plan.checkpoint = 2 * std::max(m.parameters * 4, plan.optimizerState);

  // Each process of the run may use its share of what is usable.
  const auto usable = usableShareOf(availableBytes) / plan.processes;
  if (r.frozen) {
    // The frozen model's own plan, its process cost already counted above: resident when the
    // whole run fits so, streamed when only that fits.
    const MemoryPlan frozen = planMemory(*r.frozen, availableBytes);
    plan.frozenActivations = frozen.activations;
    plan.frozenWeights = frozen.residentWeights;
    plan.frozenStreams = r.frozen->streamRequested || plan.needed() > usable;
    if (plan.frozenStreams) plan.frozenWeights = frozen.streamedWeights;
  }
  plan.fits = plan.needed() <= usable;
  return plan;
}

TrainingMemoryPlan checkTrainingMemory(const TrainingMemoryRequest& request, JobContext* job,
                                       int deviceIndex) {
  const TrainingMemoryPlan plan =
      planTrainingMemory(request, availableMemory(request.cuda, deviceIndex));
  if (job) job->info(plan.describe());
  if (!plan.fits) throw MemoryError(plan.refusal());
  return plan;
}

TrainingPlanPreview planPluginRecipeMemory(const std::string& recipe, int64_t bytes,
                                           const std::string& parts, const std::string& advice,
                                           JobContext* job) {
  const int64_t available = availableHostMemory();
  const int64_t process = processCost(0, false);
  const int64_t needed = process + std::max<int64_t>(bytes, 0);
  TrainingPlanPreview preview;
  preview.fits = needed <= usableShareOf(available);
  const std::string counted = "plugin recipe " + recipe + ": " + (parts.empty() ? "?" : parts);
  preview.plan = "training memory plan: " + counted + "; process " + formatBytes(process) +
                 " — needs " + formatBytes(needed) + " of " + formatBytes(available) +
                 " available memory" + (preview.fits ? ": fits" : ": does not fit");
  if (job) job->info(preview.plan);
  if (!preview.fits)
    preview.refusal = "this training run needs about " + formatBytes(needed) + " of memory (" +
                      counted + "; the process " + formatBytes(process) + ") but only " +
                      formatBytes(available) + " is available." +
                      (advice.empty() ? "" : " " + advice);
  return preview;
}

}  // namespace strata::engine
