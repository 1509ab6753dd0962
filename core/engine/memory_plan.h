#pragma once
// How much memory a job on a model will need, decided before the model is loaded: the weights
// (resident, or one block at a time when streamed), the activations for the requested batch,
// sequence length and sample, and the fixed cost of the process. Compared with what the machine
// has (MemAvailable on the CPU, free device memory on a GPU), the plan keeps the model resident
// when it fits, streams its layers when only that fits, and otherwise refuses with a message
// that says what is needed, what is available and what to change. No job is killed for memory
// without a word: it is refused before it starts.
//
// Torch-free: the CLI and the GUI show the plan; capture, score and generate follow it.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "common/memory_budget.h"
#include "io/hf/hf_config.h"

namespace strata {

class JobContext;

}  // namespace strata

namespace strata::engine {

using strata::kUsableShare;
using strata::MemoryError;
using strata::processCost;
using strata::usableShareOf;

/** What a job will do with the model. */
struct MemoryRequest {
  io::ModelConfig config;
  int64_t parameterCount = 0;   ///< every weight of the model
  int computeBytes = 4;         ///< 4 for float32, 2 for bfloat16
  bool cuda = false;            ///< weights and activations on a GPU
  int64_t batchSequences = 16;  ///< sequences per forward call
  int64_t sequenceLength = 256;
  /** Token positions held at once across the whole sample, padding included: sequences ×
   *  sequence length (capture keeps one layer's states for every sequence; 0: one batch only,
   *  as generate). */
  int64_t sampleTokens = 0;
  bool logits = false;  ///< the LM head runs (generate, verify)
  /** What the capture's sink holds beside the stored rows, in host memory (a geometry scan
   *  scoring each layer as it is captured: engine/capture_scoring.h). */
  int64_t sinkBytes = 0;
  bool streamRequested = false;  ///< --stream-layers: stream whatever the plan says
};

/** The plan: sizes in bytes. */
struct MemoryPlan {
  /** Every weight in the compute dtype but the token table and the head, which are read on use:
   *  a batch's embedding rows, the head when logits are asked. */
  int64_t residentWeights = 0;
  int64_t streamedWeights = 0;  ///< what streaming holds: a block (two on a GPU), the same rows
  int64_t activations = 0;      ///< states of the sample + one batch's block intermediates
  /** One batch's block intermediates alone (part of activations): the bound on the buffers a
   *  forward pass keeps for reuse (model/backbone/buffer_cache.h). */
  int64_t blockBuffers = 0;
  int64_t fixedCost = 0;  ///< the process itself (LibTorch, tokenizer, buffers)
  int64_t sink = 0;       ///< what the capture's sink holds (MemoryRequest::sinkBytes)
  int64_t available = 0;  ///< what the machine has now
  bool stream = false;    ///< the job streams its layers
  bool fits = false;      ///< false: the job must be refused
  std::string device;     ///< "memory" or "GPU memory"

  /** The peak the plan expects: fixed cost + (resident or streamed weights) + activations +
   *  the sink's. */
  int64_t needed() const;
  /** What keeping the model resident would need (the same as needed() unless it streams). */
  int64_t neededResident() const { return fixedCost + residentWeights + activations + sink; }
  /** One paragraph for the CLI and the GUI, e.g. "memory plan: 7.4 B parameters … fits". */
  std::string describe() const;
  /** Why the job cannot run and what to change (only when !fits). */
  std::string refusal() const;
};

/** Plans `request` against `availableBytes`. */
MemoryPlan planMemory(const MemoryRequest& request, int64_t availableBytes);

/**
 * What is available for a job now: MemAvailable from /proc/meminfo on the CPU, the device's
 * free memory (cudaMemGetInfo) on a GPU. STRATA_MEMORY_AVAILABLE (bytes, or with a K/M/G/T
 * suffix) overrides both, for tests and for users who share a machine.
 */
int64_t availableMemory(bool cuda, int deviceIndex = 0);

/**
 * Plans `request` against what is available now, reports the plan through `job` (info), and
 * throws MemoryError with the plan's refusal when it does not fit. Returns the plan: its
 * `stream` is what the job must do.
 */
MemoryPlan checkMemory(const MemoryRequest& request, JobContext* job, int deviceIndex = 0);

/**
 * The plan of a frozen backbone of the model in `folder` that runs `batch` sequences of
 * `length` tokens per call (`logits`: with its LM head), checked as checkMemory does. Returns
 * whether the backbone must stream its layers; throws MemoryError when it cannot fit at all.
 * For the teachers, judges and sources that recipes and verify load beside their own work.
 */
bool frozenBackboneStreams(const std::filesystem::path& folder, bool cuda, int64_t batch,
                           int64_t length, bool logits, JobContext* job = nullptr);

/**
 * The request of a job on the model in `folder` (a folder of safetensors or of a GGUF file
 * read in place): its config and parameter count come from the headers alone.
 */
MemoryRequest memoryRequestFor(const std::filesystem::path& folder);

}  // namespace strata::engine
