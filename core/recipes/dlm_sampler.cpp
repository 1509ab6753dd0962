// Chunk-ordered parallel unmasking (see dlm_sampler.h).

#include "recipes/dlm_sampler.h"

#include <torch/torch.h>

#include "common/error.h"
#include "model/dcdm_masks.h"
#include "recipes/dcdm_files.h"
#include "recipes/unmasking.h"

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
  const auto& shape = model->config();
  const int64_t steps = config.stepsPerChunk > 0 ? config.stepsPerChunk : defaultSteps;
  const std::vector<int32_t> prompt = tokenizer.encode(promptText, true);
  const int64_t length = static_cast<int64_t>(prompt.size()) + config.newTokens;
  if (length > shape.maxPositions)
    throw Error("sampling: prompt + new tokens (" + std::to_string(length) + ") exceed the model's " +
                std::to_string(shape.maxPositions) + " positions");
  // mdlm has a single chunk: give it S steps per block_size tokens, as bdlm gets.
  const int64_t stepsPerChunk = shape.variant == "mdlm"
                                    ? steps * ((config.newTokens + shape.blockSize - 1) / shape.blockSize)
                                    : steps;
  UnmaskingModel unmasking;
  unmasking.maskId = shape.maskId();
  unmasking.chunkIds = [&](const torch::Tensor& x) { return chunkIdsOf(model, x); };
  unmasking.logits = [&](const torch::Tensor& x, const torch::Tensor& ids) {
    return model->forwardSampling(x, ids)[0];
  };
  DlmSample sample = unmaskChunkByChunk(unmasking, prompt, config.newTokens, stepsPerChunk, config);
  sample.text = tokenizer.decode(sample.tokens, true);
  return sample;
}

}  // namespace strata
