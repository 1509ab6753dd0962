#pragma once
// Sampling from a trained masked diffusion LM (dcdm runs, any variant): the prompt is pinned to
// chunk 0 (clean); the continuation starts fully masked after it; chunk by chunk in chunk order
// (the lowest chunk id that still has masked positions), the masked positions of that chunk are
// unmasked in parallel over S steps, the most confident predictions first (MaskGIT-style
// confidence ordering), with the clean earlier chunks in context. dcdm lays out chunks by
// chunk-sequential routing exactly as in training (model/diffusion/chunk_layout.h): pass c reads
// the decoded chunks < c, so a decoded token keeps its chunk; bdlm uses positional blocks; mdlm is
// one chunk. The step budget is per token by default (DlmStepBudget): a chunk gets steps in
// proportion to its tokens, so every variant spends the same number of denoising steps on the
// same continuation, whatever its chunk sizes. bdlm and dcdm keep
// a KV cache of the decoded earlier chunks (block diffusion's cache, DcdmKvCache): each step
// computes only the current chunk's rows; a chunk joins the cache once it is fully decoded.
// mdlm (one chunk) has nothing to cache. No torch in this header.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace strata::recipes {

/** How many denoising steps each chunk (block) of the continuation gets. Why per token: with a
 *  fixed number of steps per chunk, a dcdm chunk of 16 tokens reveals several tokens per step
 *  where a bdlm block of 8 reveals one, and the variants' samples are not comparable. */
struct DlmStepBudget {
  /// Steps per generated token, in (0, 1]: the steps through the end of chunk c are
  /// ⌈rate · (tokens through chunk c)⌉, and at least one more than before it (a chunk is decoded
  /// in steps of its own). So a 16-token chunk gets 16× the steps of a 1-token one, and N tokens
  /// take ⌈rate · N⌉ steps in every variant (more only when some chunk would get none). Above 1
  /// it would change nothing: the sampler reveals at least one token per step.
  double stepsPerToken = 1.0;
  /// > 0: this many steps per chunk whatever its size (the old rule; stepsPerToken unused).
  int64_t stepsPerChunk = 0;

  /** The steps of a chunk of `chunkTokens` masked positions begun after `tokensBefore`
   *  continuation tokens were revealed in `stepsBefore` steps. */
  int64_t stepsFor(int64_t chunkTokens, int64_t tokensBefore, int64_t stepsBefore) const;
};

struct DlmSamplingConfig {
  int64_t newTokens = 64;
  int64_t stepsPerChunk = 0;  ///< > 0: that many steps per chunk (DlmStepBudget::stepsPerChunk)
  double stepsPerToken = 0;   ///< > 0: that rate; both 0 = the run's budget (sample_steps*)
  double temperature = 0;     ///< 0 = argmax; > 0 samples from softmax(logits / T)
  uint64_t seed = 0;
  bool kvCache = true;  ///< false: recompute the whole sequence every step (same tokens)
  /// Where sampleDlm loads the model: "cpu", "cuda" or "auto" (engine/device_choice.h). The
  /// unmasking bookkeeping stays on the CPU; each pass's input goes to the model's device.
  std::string device = "auto";
};

struct DlmSample {
  std::vector<int32_t> prompt;
  std::vector<int32_t> tokens;          ///< the continuation
  std::vector<int64_t> chunkIds;        ///< final chunk id of every position (prompt included)
  std::vector<int64_t> unmaskedAtStep;  ///< the step each continuation token was revealed
  std::string text;                     ///< decoded continuation
  int64_t steps = 0;
  double seconds = 0;
};

DlmSample sampleDlm(const std::filesystem::path& runFolder, const std::string& prompt,
                    const DlmSamplingConfig& config);

}  // namespace strata::recipes
