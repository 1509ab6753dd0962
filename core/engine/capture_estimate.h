#pragma once
// What a capture (and the scoring of the store it writes) will cost, known before anything is
// loaded: the workbench's capture dialog shows it and updates it as tokens and sequence length
// change. Memory is the memory plan's (engine/memory_plan.h) for the capture's own shape, so the
// dialog refuses what the job itself would refuse. Times are estimates from throughput measured
// on the 2-core build machine (docs/benchmarks.md), on the CPU in float32: a GPU, more cores or
// bfloat16 are faster, a loaded machine slower. They say how long to expect (seconds or hours),
// not when it will finish. Torch-free.

#include <cstdint>

#include "engine/memory_plan.h"
#include "io/hf/hf_config.h"

namespace strata::engine {

/**
 * How much faster a CPU with fast native bf16 captures in bfloat16, when the caller does not
 * say (CaptureShape::cpuBf16Speedup; the dialog gives the measured matmul ratio): measured on an
 * AMD EPYC (Zen 4), 4,096 WikiText-2 tokens, SmolLM2-135M 9.4 → 4.3 s and Qwen2.5-0.5B
 * 22.1 → 7.7 s (2.2× and 2.9×); 2 errs on the slow side.
 */
inline constexpr double kCpuBFloat16Speedup = 2.0;

/** A capture as the dialog describes it. */
struct CaptureShape {
  int64_t tokens = 8192;         ///< rows stored per layer (the token budget)
  int64_t sequenceLength = 128;  ///< T, BOS included
  int64_t skipFirstPositions = 1;
  int64_t batchSequences = 16;
  int computeBytes = 4;  ///< 4 for float32, 2 for bfloat16 (what auto resolved to)
  /** How much faster bf16 runs than float32 on this CPU (engine/cpu_bf16_speed.h). */
  double cpuBf16Speedup = kCpuBFloat16Speedup;
  bool cuda = false;
  bool streamLayers = false;  ///< the user asked to stream
};

/**
 * Floating-point operations per second a CPU capture reaches, forward passes and store writing
 * together: on the 2-core build machine SmolLM2-135M ran at 0.75–1.3·10¹¹ (4,096 tokens in
 * 15.4 / 8.7 s, docs/benchmarks.md "Real models") and Llama-3-8B's shapes at 2.2·10¹¹ (313.6 s,
 * "Large GGUF"); 10¹¹ errs on the slow side for small models.
 */
inline constexpr double kCaptureFlopsPerSecond = 1e11;

/**
 * Scoring a layer of N rows of width d takes about N·d² / kScoringRate seconds with the default
 * proxy options (20 bootstrap resamples, M = 1,024, k = 32): fitted on SmolLM2-135M (31 layers,
 * N = 4,096, d = 576: 24.2 s measured, 21 s by this rate) and Llama-3-8B's shapes (33 layers,
 * d = 4,096: 1,010 s measured, 1,134 s by this rate) on the same machine.
 */
inline constexpr double kScoringRate = 2e9;

/** How many sequences the sampler cuts to store `shape.tokens` rows (each full sequence stores
 *  T − skip of them). */
int64_t sequencesFor(const CaptureShape& shape);

/** The memory request of the capture: `config` and `parameterCount` of the model, the sample
 *  of sequencesFor() sequences of T positions. */
MemoryRequest captureMemoryRequest(const io::ModelConfig& config, int64_t parameterCount,
                                   const CaptureShape& shape);

/** Seconds the capture's forward passes and writing take: sequences × T positions, each
 *  2 FLOPs per parameter plus causal attention's 2·T·d per layer, at kCaptureFlopsPerSecond
 *  (shape.cpuBf16Speedup times that for bfloat16 on the CPU). */
double estimateCaptureSeconds(const io::ModelConfig& config, int64_t parameterCount,
                              const CaptureShape& shape);

/** Seconds scoring every stored layer (h_0 … h_L) of `rows` rows takes at kScoringRate. */
double estimateScoringSeconds(const io::ModelConfig& config, int64_t rows);

}  // namespace strata::engine
