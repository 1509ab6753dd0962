// Chunk-ordered parallel unmasking (see dlm_sampler.h).

#include "recipes/dlm_sampler.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>

#include "common/error.h"
#include "engine/device_choice.h"
#include "recipes/dcdm/dcdm_files.h"
#include "recipes/unmasking.h"

namespace strata::recipes {

int64_t DlmStepBudget::stepsFor(int64_t chunkTokens, int64_t tokensBefore,
                                int64_t stepsBefore) const {
  if (stepsPerChunk > 0) return stepsPerChunk;
  if (!(stepsPerToken > 0)) throw Error("sampling: steps per token must be positive");
  // The cumulative budget, so that rounding never accumulates over chunks; the 1e-9 keeps an
  // exact product (0.5 · 8) from rounding up through float error.
  const auto through = static_cast<int64_t>(
      std::ceil(stepsPerToken * static_cast<double>(tokensBefore + chunkTokens) - 1e-9));
  return std::max<int64_t>(1, through - stepsBefore);
}

DlmSample sampleDlm(const std::filesystem::path& runFolder, const std::string& promptText,
                    const DlmSamplingConfig& config) {
  LoadedDlm dlm = loadDlmRun(runFolder, engine::computeDevice(config.device, "device"));
  return sampleWithModel(dlm.model, *dlm.tokenizer, promptText, config,
                         dlmStepBudgetFrom(dlm.config));
}

DlmSample sampleWithModel(model::DcdmTransformer& model, const tokenizer::Tokenizer& tokenizer,
                          const std::string& promptText, const DlmSamplingConfig& config,
                          const DlmStepBudget& runBudget) {
  if (config.newTokens < 1) throw Error("sampling: ask for at least one new token");
  const auto& shape = model->config();
  DlmStepBudget budget = runBudget;
  if (config.stepsPerChunk > 0) {
    budget.stepsPerChunk = config.stepsPerChunk;
  } else if (config.stepsPerToken > 0) {
    budget.stepsPerChunk = 0;
    budget.stepsPerToken = config.stepsPerToken;
  }
  const std::vector<int32_t> prompt = tokenizer.encode(promptText, true);
  const int64_t length = static_cast<int64_t>(prompt.size()) + config.newTokens;
  if (length > shape.maxPositions)
    throw Error("sampling: prompt + new tokens (" + std::to_string(length) +
                ") exceed the model's " + std::to_string(shape.maxPositions) + " positions");
  // Under the old per-chunk rule mdlm's single chunk gets S steps per block_size tokens, as
  // bdlm gets (the per-token budget needs no such correction).
  if (budget.stepsPerChunk > 0 && shape.variant == model::DlmVariant::Mdlm)
    budget.stepsPerChunk *= (config.newTokens + shape.blockSize - 1) / shape.blockSize;
  // The prompt is pinned to chunk 0 (clean context for every chunk); the rest is laid out as in
  // training — for dcdm, chunk-sequential routing of the current sequence: when chunk c is
  // decoded, chunks < c are clean, which is all that pass c (and chunk c's membership) reads,
  // so a decoded token keeps its chunk and chunk c starts from all-masked with clean context.
  // The sampler keeps x and the chunk ids on the CPU; passes run on the model's device.
  const torch::Device device = model->parameters().front().device();
  const torch::Tensor pinned =
      torch::arange(length).lt(static_cast<int64_t>(prompt.size())).unsqueeze(0).to(device);
  model::ChunkLayout
      layout;  // of the sequence the last chunkIds call saw; logits reuse its order bias
  UnmaskingModel unmasking;
  unmasking.maskId = shape.maskId();
  unmasking.chunkIds = [&](const torch::Tensor& x) {
    layout = model->chunkLayout(x.to(device), pinned);
    return layout.ids.to(torch::kCPU);
  };
  // The KV cache holds chunks 0 … cachedChunks−1 (their membership and tokens are final once
  // the sampler has moved past them); each step computes the current chunk's rows only.
  model::DcdmKvCache cache;
  int64_t cachedChunks = 0;
  const bool useCache = config.kvCache && shape.variant != model::DlmVariant::Mdlm;
  unmasking.logits = [&](const torch::Tensor& hostX, const torch::Tensor& hostIds) {
    const torch::Tensor x = hostX.to(device), ids = hostIds.to(device);
    if (!torch::equal(ids, layout.ids)) layout = model::fixedChunkLayout(ids, layout.chunks);
    if (!useCache) return model->forwardSampling(x, layout)[0].to(torch::kCPU);
    const torch::Tensor chunkOf = ids[0];
    const int64_t chunk = chunkOf.masked_select(x[0] == shape.maskId()).min().item<int64_t>();
    for (; cachedChunks < chunk; ++cachedChunks) {
      const torch::Tensor done = (chunkOf == cachedChunks).nonzero().squeeze(1);
      if (done.numel() > 0) model->forwardSamplingCached(x, layout, done, cache, true);
    }
    const torch::Tensor rows = (chunkOf == chunk).nonzero().squeeze(1);
    const torch::Tensor logits = model->forwardSamplingCached(x, layout, rows, cache, false)[0];
    return torch::zeros({x.size(1), logits.size(1)}, logits.options())
        .index_copy_(0, rows, logits)
        .to(torch::kCPU);
  };
  DlmSample sample = unmaskChunkByChunk(unmasking, prompt, config.newTokens, budget, config);
  sample.text = tokenizer.decode(sample.tokens, true);
  return sample;
}

}  // namespace strata::recipes
