#pragma once
// The sampling loop every masked diffusion LM here shares: the continuation starts fully masked
// after the prompt; chunk by chunk in chunk order (the lowest chunk id that still has masked
// positions), the masked positions of that chunk are revealed in parallel over S steps, the
// most confident predictions first (MaskGIT-style confidence ordering). What differs between
// models — how positions are grouped into chunks and which logits predict a position — comes
// in as two functions.

#include <ATen/core/Tensor.h>

#include <functional>
#include <vector>

#include "recipes/dlm_sampler.h"

namespace strata::recipes {

struct UnmaskingModel {
  int64_t maskId = 0;
  /** The chunk id of every position of x [1, T]: [1, T] int64 (may follow x's content). */
  std::function<at::Tensor(const at::Tensor& x)> chunkIds;
  /** Logits [T, vocab] whose row i predicts the token at position i of x [1, T]. */
  std::function<at::Tensor(const at::Tensor& x, const at::Tensor& chunkIds)> logits;
};

/** Fills `newTokens` masked positions after `prompt`, each chunk with the steps `budget` gives
 *  it when the sampler reaches it (its masked positions then); a chunk that gains masked
 *  positions after its steps are spent reveals them all at once. The result's text is left
 *  empty (the caller's tokenizer decodes). */
DlmSample unmaskChunkByChunk(const UnmaskingModel& model, const std::vector<int32_t>& prompt,
                             int64_t newTokens, const DlmStepBudget& budget,
                             const DlmSamplingConfig& config);

/** The same with `stepsPerChunk` steps for every chunk. */
DlmSample unmaskChunkByChunk(const UnmaskingModel& model, const std::vector<int32_t>& prompt,
                             int64_t newTokens, int64_t stepsPerChunk,
                             const DlmSamplingConfig& config);

}  // namespace strata::recipes
