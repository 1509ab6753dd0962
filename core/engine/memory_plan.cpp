#include "engine/memory_plan.h"

#include <algorithm>
#include <sstream>

#include "common/error.h"
#include "common/human_format.h"
#include "common/job.h"
#include "io/hf/model_folder.h"

#ifdef STRATA_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace strata::engine {

namespace {

/** Bytes of the weights outside the blocks: embedding, untied head, learned positions. */
int64_t outerParameters(const io::ModelConfig& c) {
  int64_t outer = c.vocabSize * c.hiddenSize * (c.tieWordEmbeddings ? 1 : 2) + c.hiddenSize;
  if (c.positionEncoding == io::PositionEncoding::LearnedAbsolute)
    outer += c.maxPositions * c.hiddenSize;
  return outer;
}

/** Sequences in one forward call: the batch, or the whole sample when it is smaller. */
int64_t batchOf(const MemoryRequest& r) {
  if (r.sampleTokens <= 0 || r.sequenceLength <= 0) return r.batchSequences;
  const int64_t sequences = (r.sampleTokens + r.sequenceLength - 1) / r.sequenceLength;
  return std::clamp<int64_t>(sequences, 1, std::max<int64_t>(r.batchSequences, 1));
}

/** What one batch's pass through one block holds at its peak, in bytes. */
int64_t blockIntermediates(const MemoryRequest& r) {
  const io::ModelConfig& c = r.config;
  const int64_t batch = batchOf(r);
  const int64_t tokens = batch * r.sequenceLength;
  const int64_t heads = std::max<int64_t>(c.numHeads, 1);
  const int64_t headDim = c.headDim > 0 ? c.headDim : c.hiddenSize / heads;
  const int64_t kvHeads = c.numKeyValueHeads > 0 ? c.numKeyValueHeads : heads;
  // q, k, v (k and v expanded to every head), the attention output and the residual stream.
  const int64_t attention =
      tokens * (4 * heads * headDim + 2 * kvHeads * headDim + 3 * c.hiddenSize);
  // The MLP's widest moment, with the residual stream and the norm's output beside it: four
  // intermediate widths, fitted to measured captures (bench/large_gguf.py) when gate, up, the
  // activation and the product were four buffers. In inference the last two are now written over
  // the gate (model/backbone/activation.h); the margin is kept (it also bounds the buffers a
  // capture keeps for reuse). What once put a 49,152-token SmolLM2 capture 13 % above the plan
  // was capture's finiteness check, not the MLP (docs/benchmarks.md, "The capture plan's
  // under-count").
  const int64_t mlp =
      tokens * (4 * std::max<int64_t>(c.intermediateSize, c.hiddenSize) + 8 * c.hiddenSize);
  // Scores and their softmax, float32 whatever the compute dtype (the CPU's math kernel).
  const int64_t scores = batch * heads * r.sequenceLength * r.sequenceLength * 4 * 2;
  return std::max(attention, mlp) * r.computeBytes + scores;
}

}  // namespace

int64_t MemoryPlan::needed() const {
  return fixedCost + (stream ? streamedWeights : residentWeights) + activations + sink;
}

std::string MemoryPlan::describe() const {
  std::ostringstream out;
  out << "memory plan: weights " << formatBytes(residentWeights) << " resident";
  if (stream) out << ", " << formatBytes(streamedWeights) << " held while streaming layers";
  out << "; activations " << formatBytes(activations);
  if (sink > 0) out << "; scoring " << formatBytes(sink);
  out << "; process " << formatBytes(fixedCost) << " — needs " << formatBytes(needed()) << " of "
      << formatBytes(available) << " available " << device;
  if (!fits)
    out << ": does not fit";
  else
    out << (stream ? ": streams its layers (the model does not fit resident)" : ": resident");
  return out.str();
}

std::string MemoryPlan::refusal() const {
  std::ostringstream out;
  out << "this job needs about " << formatBytes(needed()) << " of " << device << " (weights "
      << formatBytes(stream ? streamedWeights : residentWeights)
      << (stream ? " with layers streamed" : "") << ", activations " << formatBytes(activations)
      << (sink > 0 ? ", scoring " + formatBytes(sink) : std::string()) << ", the process "
      << formatBytes(fixedCost) << ") but only " << formatBytes(available)
      << " is available. Capture fewer tokens (--tokens) or use a smaller --batch or --seq-len "
         "(the activations grow with each), compute in bfloat16 (--compute-dtype bf16) "
         "to halve the weights and activations, or run on a device with more memory";
  return out.str();
}

MemoryPlan planMemory(const MemoryRequest& r, int64_t availableBytes) {
  const io::ModelConfig& c = r.config;
  MemoryPlan plan;
  plan.device = r.cuda ? "GPU memory" : "memory";
  plan.available = availableBytes;
  plan.fixedCost = processCost(c.vocabSize, r.cuda);
  const int64_t cb = r.computeBytes;
  const int64_t layers = std::max<int64_t>(c.numLayers, 1);
  const int64_t blockParameters =
      std::max<int64_t>(0, r.parameterCount - outerParameters(c)) / layers;
  const int64_t batchTokens = batchOf(r) * r.sequenceLength;
  // Either way the token table and the LM head are not converted whole: a batch's embedding
  // rows are read (and held in float32), and the head only when logits are asked (a tied head
  // is the table, converted once).
  const int64_t tables = c.vocabSize * c.hiddenSize * (c.tieWordEmbeddings ? 1 : 2);
  const int64_t outerUse =
      batchTokens * c.hiddenSize * 4 + (r.logits ? c.vocabSize * c.hiddenSize * cb : 0);
  plan.residentWeights = std::max<int64_t>(0, r.parameterCount - tables) * cb + outerUse;
  // Streamed: the block computing (on a GPU also the next, staged while it computes) and the
  // final norm.
  const int64_t blocksHeld = r.cuda ? 2 : 1;
  plan.streamedWeights = blocksHeld * blockParameters * cb + c.hiddenSize * cb + outerUse;
  // Capture keeps one layer's states of the whole sample, and picks the stored rows out of
  // them (a concatenation, the rows, their float32 copy) while the writer holds the last layer.
  const int64_t sample = std::max(r.sampleTokens, batchTokens);
  plan.blockBuffers = blockIntermediates(r);
  int64_t activations = sample * c.hiddenSize * (3 * cb + 2 * 4) + plan.blockBuffers;
  if (r.logits) activations += batchTokens * c.vocabSize * 4 * 2;
  plan.activations = activations;
  // Host memory: on a GPU the plan is the device's, and the sink's is checked by the capture.
  plan.sink = r.cuda ? 0 : r.sinkBytes;

  const auto usable = usableShareOf(availableBytes);
  plan.stream = r.streamRequested;
  if (!plan.stream && plan.needed() > usable) plan.stream = true;
  plan.fits = plan.needed() <= usable;
  return plan;
}

int64_t availableMemory(bool cuda, int deviceIndex) {
  if (const int64_t forced = memoryAvailableOverride(); forced >= 0) return forced;
#ifdef STRATA_WITH_CUDA
  if (cuda) {
    std::size_t free = 0, total = 0;
    int previous = 0;
    cudaGetDevice(&previous);
    cudaSetDevice(deviceIndex);
    const cudaError_t status = cudaMemGetInfo(&free, &total);
    cudaSetDevice(previous);
    if (status != cudaSuccess)
      throw Error(std::string("cannot read the GPU's free memory: ") + cudaGetErrorString(status));
    return static_cast<int64_t>(free);
  }
#else
  (void)cuda;
  (void)deviceIndex;
#endif
  return availableHostMemory();
}

MemoryPlan checkMemory(const MemoryRequest& request, JobContext* job, int deviceIndex) {
  const MemoryPlan plan = planMemory(request, availableMemory(request.cuda, deviceIndex));
  if (job) job->info(plan.describe());
  if (!plan.fits) throw MemoryError(plan.refusal());
  return plan;
}

bool frozenBackboneStreams(const std::filesystem::path& folder, bool cuda, int64_t batch,
                           int64_t length, bool logits, JobContext* job) {
  MemoryRequest request = memoryRequestFor(folder);
  request.cuda = cuda;
  request.batchSequences = std::max<int64_t>(batch, 1);
  request.sequenceLength = std::max<int64_t>(length, 1);
  request.logits = logits;
  return checkMemory(request, job).stream;
}

MemoryRequest memoryRequestFor(const std::filesystem::path& folder) {
  const io::ModelSummary summary = io::inspectModelWeights(folder);
  MemoryRequest request;
  request.config = summary.config;
  request.parameterCount = summary.parameterCount;
  return request;
}

}  // namespace strata::engine
