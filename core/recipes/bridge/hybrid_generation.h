#pragma once
// Hybrid generation (DiHAL): prompt → input embeddings → bridge (S sampler steps) → the frozen
// layers l*+1..L → LM head → next token, repeated; and its comparison with the original model
// on a set of prompts: the continuations side by side, their sample quality as the literature
// measures it (recipes/sample_quality.h: Gen.PPL under a judge model, by default the source
// model itself, and SimCTG per-text diversity over words and over tokens), and the latency per
// token of both. Position 0 of the context (the attention sink, a function of token 0 alone)
// comes from the source model, as in training; the bridge rebuilds positions 1.. . No torch
// here.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "model/backbone/generation.h"

namespace strata {

class JobContext;

}  // namespace strata

namespace strata::recipes {

struct HybridComparisonConfig {
  std::filesystem::path bridgeRun;
  std::vector<std::string> prompts;
  model::GenerationConfig sampling;  ///< the same for both models
  /// The Gen.PPL judge (a model folder); empty = the bridge's source model (self-judged).
  std::filesystem::path judge;
  int64_t sampleSteps = 0;  ///< DDIM steps; 0 = the run's sample_steps
  bool original = true;     ///< also generate with the original model
  /// Where the bridge, the models and the judge run: "cpu", "cuda" or "auto"
  /// (engine/device_choice.h).
  std::string device = "auto";
};

struct Continuation {
  std::vector<int32_t> tokens;
  std::string text;
  double secondsPerToken = 0;
  double genPpl = 0;  ///< exp(mean CE of the continuation's text under the judge)
};

struct PromptComparison {
  std::string prompt;
  Continuation original, hybrid;
};

struct HybridComparison {
  int64_t layer = 0;  ///< l* of the bridge
  int64_t sampleSteps = 0;
  /// The run is the unconditional layer-0 baseline: its "hybrid" side is embedding diffusion,
  /// tokens by rounding (recipes/bridge/embedding_diffusion.h; temperature and top-p do not apply).
  bool embeddingDiffusion = false;
  std::vector<PromptComparison> prompts;
  std::string judge;       ///< the judge's model folder
  bool selfJudged = true;  ///< the judge is the source model (it favours its own text)
  double originalGenPpl = 0, hybridGenPpl = 0;                  ///< over all prompts' judged tokens
  double originalDiversity = 0, hybridDiversity = 0;            ///< SimCTG, per text, over words
  double originalTokenDiversity = 0, hybridTokenDiversity = 0;  ///< the same over token ids
  double originalMsPerToken = 0, hybridMsPerToken = 0;
  double slowdown() const {
    return originalMsPerToken > 0 ? hybridMsPerToken / originalMsPerToken : 0;
  }
};

/** Which side a streamed token belongs to. */
enum class GenerationSide { Original, Hybrid };

/** Runs both generators over every prompt. `onToken(prompt index, side, token text)` streams
 *  as tokens are chosen. Checks job cancellation between tokens. */
HybridComparison compareHybridGeneration(
    const HybridComparisonConfig& config, JobContext& job,
    const std::function<void(size_t, GenerationSide, const std::string&)>& onToken = {});

}  // namespace strata::recipes
