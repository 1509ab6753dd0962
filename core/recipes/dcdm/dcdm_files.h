#pragma once
// How a dcdm run's settings become objects, and loading a trained masked diffusion LM from its
// run folder (tokenizer files in the folder, weights of the best or newest valid checkpoint).

#include <c10/core/Device.h>

#include <filesystem>
#include <memory>

#include "engine/config_schema.h"
#include "model/diffusion/dcdm_transformer.h"
#include "model/diffusion/masked_diffusion.h"
#include "recipes/dlm_sampler.h"
#include "tokenizer/tokenizer.h"

namespace strata::recipes {

model::MaskedDiffusion maskedDiffusionFrom(const engine::ResolvedConfig& config);
model::DcdmTransformerConfig dcdmConfigFrom(const engine::ResolvedConfig& config, int64_t vocab);

struct LoadedDlm {
  engine::ResolvedConfig config;
  std::unique_ptr<tokenizer::Tokenizer> tokenizer;
  model::DcdmTransformer model{nullptr};
  int64_t checkpointStep = 0;
};
/** IoError/FormatError naming the folder when it is not a dcdm run or has no valid checkpoint. */
LoadedDlm loadDlmRun(const std::filesystem::path& runFolder, const at::Device& device = at::kCPU);
/** The same, with the weights of checkpoint step-<step> (IoError when it is not there or does
 *  not verify). */
LoadedDlm loadDlmRunAt(const std::filesystem::path& runFolder, int64_t step);

/** A run's sampling budget: sample_steps_per_token, or sample_steps per chunk when it is > 0. */
DlmStepBudget dlmStepBudgetFrom(const engine::ResolvedConfig& config);

/** The sampler of dlm_sampler.h on a model in memory (the recipe's evaluation samples);
 *  runBudget applies unless config.stepsPerChunk or config.stepsPerToken is set. */
DlmSample sampleWithModel(model::DcdmTransformer& model, const tokenizer::Tokenizer& tokenizer,
                          const std::string& prompt, const DlmSamplingConfig& config,
                          const DlmStepBudget& runBudget);

}  // namespace strata::recipes
