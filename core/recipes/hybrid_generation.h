#pragma once
// Hybrid generation (DiHAL): prompt → input embeddings → bridge (S DDIM steps) → the frozen
// layers l*+1..L → LM head → next token, repeated; and its comparison with the original model
// on a set of prompts: the continuations side by side, Gen.PPL of each judged by the full
// original model, diversity = ∏_{n=2..4} distinct-n, and the latency per token of both. No
// torch here.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "model/generation.h"

namespace strata {

class JobContext;

struct HybridComparisonConfig {
  std::filesystem::path bridgeRun;
  std::vector<std::string> prompts;
  GenerationConfig sampling;   ///< the same for both models
  int64_t sampleSteps = 0;     ///< DDIM steps; 0 = the run's sample_steps
  bool original = true;        ///< also generate with the original model
};

struct Continuation {
  std::vector<int32_t> tokens;
  std::string text;
  double secondsPerToken = 0;
  double genPpl = 0;           ///< exp(mean CE of the continuation under the original model)
};

struct PromptComparison {
  std::string prompt;
  Continuation original, hybrid;
};

struct HybridComparison {
  int64_t layer = 0;           ///< l* of the bridge
  int64_t sampleSteps = 0;
  std::vector<PromptComparison> prompts;
  double originalGenPpl = 0, hybridGenPpl = 0;          ///< over all prompts' tokens
  double originalDiversity = 0, hybridDiversity = 0;
  double originalMsPerToken = 0, hybridMsPerToken = 0;
  double slowdown() const { return originalMsPerToken > 0 ? hybridMsPerToken / originalMsPerToken : 0; }
};

/** Which side a streamed token belongs to. */
enum class GenerationSide { Original, Hybrid };

/** Runs both generators over every prompt. `onToken(prompt index, side, token text)` streams
 *  as tokens are chosen. Checks job cancellation between tokens. */
HybridComparison compareHybridGeneration(
    const HybridComparisonConfig& config, JobContext& job,
    const std::function<void(size_t, GenerationSide, const std::string&)>& onToken = {});

/** Distinct n-grams / all n-grams, pooled over the sequences (0 when there is no n-gram). */
double distinctN(const std::vector<std::vector<int32_t>>& sequences, int n);
/** ∏_{n=2..4} distinctN: 1 for text that never repeats a 2-, 3- or 4-gram. */
double generationDiversity(const std::vector<std::vector<int32_t>>& sequences);

}  // namespace strata
