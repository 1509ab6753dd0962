// Chunk-ordered parallel unmasking (see dlm_sampler.h).

#include "recipes/dlm_sampler.h"

#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <random>

#include "common/error.h"
#include "model/dcdm_masks.h"
#include "model/generation.h"
#include "recipes/dcdm_files.h"

namespace strata {

namespace {

torch::Tensor chunkIdsOf(DcdmTransformer& model, const torch::Tensor& x) {
  const auto& c = model->config();
  if (c.variant == "bdlm") return positionalChunkIds(x.size(1), c.blockSize).unsqueeze(0);
  if (c.variant == "mdlm") return torch::zeros_like(x);
  return model->chunkIds(model->embed(x));
}

}  // namespace

DlmSample sampleDlm(const std::filesystem::path& runFolder, const std::string& promptText,
                    const DlmSamplingConfig& config) {
  LoadedDlm dlm = loadDlmRun(runFolder);
  return sampleWithModel(dlm.model, *dlm.tokenizer, promptText, config, dlm.config.integer("sample_steps"));
}

DlmSample sampleWithModel(DcdmTransformer& model, const Tokenizer& tokenizer, const std::string& promptText,
                          const DlmSamplingConfig& config, int64_t defaultSteps) {
  if (config.newTokens < 1) throw Error("sampling: ask for at least one new token");
  torch::NoGradGuard noGrad;
  const auto& shape = model->config();
  const int64_t steps = config.stepsPerChunk > 0 ? config.stepsPerChunk : defaultSteps;
  DlmSample sample;
  sample.prompt = tokenizer.encode(promptText, true);
  const auto promptLength = static_cast<int64_t>(sample.prompt.size());
  const int64_t length = promptLength + config.newTokens;
  if (length > shape.maxPositions)
    throw Error("sampling: prompt + new tokens (" + std::to_string(length) + ") exceed the model's " +
                std::to_string(shape.maxPositions) + " positions");

  torch::Tensor x = torch::full({1, length}, shape.maskId(), torch::kInt64);
  for (int64_t i = 0; i < promptLength; ++i) x[0][i] = sample.prompt[static_cast<size_t>(i)];
  std::vector<int64_t> revealedAt(static_cast<size_t>(length), -1);
  std::mt19937_64 rng(config.seed);
  const auto start = std::chrono::steady_clock::now();
  int64_t currentChunk = -1, stepsLeft = 0, step = 0;
  // mdlm has a single chunk: give it S steps per block_size tokens, as bdlm gets.
  const int64_t stepsPerChunk = shape.variant == "mdlm"
                                    ? steps * ((config.newTokens + shape.blockSize - 1) / shape.blockSize)
                                    : steps;
  while ((x == shape.maskId()).any().item<bool>()) {
    const torch::Tensor ids = chunkIdsOf(model, x);
    const torch::Tensor masked = (x == shape.maskId())[0];
    const int64_t chunk = ids[0].masked_select(masked).min().item<int64_t>();
    if (chunk != currentChunk) {
      currentChunk = chunk;
      stepsLeft = stepsPerChunk;
    }
    const torch::Tensor logits = model->forwardSampling(x, ids)[0];  // [T, vocab]
    const torch::Tensor candidates = (masked & (ids[0] == chunk)).nonzero().squeeze(1);
    const int64_t remaining = candidates.size(0);
    // Routing follows the revealed text, so a chunk can gain masked positions after its S steps
    // are spent: it then reveals all of them at once.
    const int64_t budget = std::max<int64_t>(stepsLeft, 1);
    const int64_t reveal = (remaining + budget - 1) / budget;
    // Choose a token for each candidate, then keep the `reveal` most confident.
    std::vector<std::pair<double, std::pair<int64_t, int32_t>>> choices;
    for (int64_t i = 0; i < remaining; ++i) {
      const int64_t position = candidates[i].item<int64_t>();
      const torch::Tensor row = logits[position].to(torch::kFloat).contiguous();
      const std::span<const float> values(row.data_ptr<float>(), static_cast<size_t>(row.numel()));
      const int32_t token = chooseToken(values, config.temperature, 1.0, rng);
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
  const torch::Tensor finalIds = chunkIdsOf(model, x)[0];
  for (int64_t i = 0; i < length; ++i) {
    sample.chunkIds.push_back(finalIds[i].item<int64_t>());
    if (i >= promptLength) {
      sample.tokens.push_back(static_cast<int32_t>(x[0][i].item<int64_t>()));
      sample.unmaskedAtStep.push_back(revealedAt[static_cast<size_t>(i)]);
    }
  }
  sample.text = tokenizer.decode(sample.tokens, true);
  return sample;
}

}  // namespace strata
