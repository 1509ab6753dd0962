// Chunk-ordered parallel unmasking (see unmasking.h).

#include "recipes/unmasking.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <span>

#include "model/backbone/generation.h"

namespace strata::recipes {

DlmSample unmaskChunkByChunk(const UnmaskingModel& model, const std::vector<int32_t>& prompt,
                             int64_t newTokens, int64_t stepsPerChunk,
                             const DlmSamplingConfig& config) {
  DlmStepBudget budget;
  budget.stepsPerChunk = std::max<int64_t>(1, stepsPerChunk);
  return unmaskChunkByChunk(model, prompt, newTokens, budget, config);
}

DlmSample unmaskChunkByChunk(const UnmaskingModel& model, const std::vector<int32_t>& prompt,
                             int64_t newTokens, const DlmStepBudget& budget,
                             const DlmSamplingConfig& config) {
  torch::NoGradGuard noGrad;
  DlmSample sample;
  sample.prompt = prompt;
  const auto promptLength = static_cast<int64_t>(prompt.size());
  const int64_t length = promptLength + newTokens;
  torch::Tensor x = torch::full({1, length}, model.maskId, torch::kInt64);
  for (int64_t i = 0; i < promptLength; ++i) x[0][i] = prompt[static_cast<size_t>(i)];
  std::vector<int64_t> revealedAt(static_cast<size_t>(length), -1);
  std::mt19937_64 rng(config.seed);
  const auto start = std::chrono::steady_clock::now();
  int64_t currentChunk = -1, stepsLeft = 0, step = 0;
  while ((x == model.maskId).any().item<bool>()) {
    const torch::Tensor ids = model.chunkIds(x);
    const torch::Tensor masked = (x == model.maskId)[0];
    const int64_t chunk = ids[0].masked_select(masked).min().item<int64_t>();
    const torch::Tensor candidates = (masked & (ids[0] == chunk)).nonzero().squeeze(1);
    const int64_t remaining = candidates.size(0);
    if (chunk != currentChunk) {
      currentChunk = chunk;
      const int64_t revealed = newTokens - masked.sum().item<int64_t>();
      stepsLeft = budget.stepsFor(remaining, revealed, step);
    }
    const torch::Tensor logits = model.logits(x, ids).to(torch::kFloat);  // [T, vocab]
    const int64_t budget = std::max<int64_t>(stepsLeft, 1);
    const int64_t reveal = (remaining + budget - 1) / budget;
    // Choose a token for each candidate, then keep the `reveal` most confident.
    std::vector<std::pair<double, std::pair<int64_t, int32_t>>> choices;
    for (int64_t i = 0; i < remaining; ++i) {
      const int64_t position = candidates[i].item<int64_t>();
      const torch::Tensor row = logits[position].contiguous();
      const std::span<const float> values(row.data_ptr<float>(), static_cast<size_t>(row.numel()));
      const int32_t token = model::chooseToken(values, config.temperature, 1.0, rng);
      const double confidence = torch::softmax(row, 0)[token].item<double>();
      choices.push_back({confidence, {position, token}});
    }
    std::stable_sort(choices.begin(), choices.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    for (int64_t i = 0; i < reveal; ++i) {
      const auto [position, token] = choices[static_cast<size_t>(i)].second;
      x[0][position] = token;
      revealedAt[static_cast<size_t>(position)] = step;
    }
    --stepsLeft;
    ++step;
  }
  sample.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  sample.steps = step;
  const torch::Tensor finalIds = model.chunkIds(x)[0];
  for (int64_t i = 0; i < length; ++i) {
    sample.chunkIds.push_back(finalIds[i].item<int64_t>());
    if (i >= promptLength) {
      sample.tokens.push_back(static_cast<int32_t>(x[0][i].item<int64_t>()));
      sample.unmaskedAtStep.push_back(revealedAt[static_cast<size_t>(i)]);
    }
  }
  return sample;
}

}  // namespace strata::recipes
