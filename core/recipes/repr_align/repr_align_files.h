#pragma once
// repr_align settings → objects, and loading a converted model from its run folder (the run's
// tokenizer, the source model's architecture, the student's weights from the best or newest
// valid checkpoint) for sampling.

#include <filesystem>
#include <memory>
#include <optional>

#include "engine/config_schema.h"
#include "model/trainable/alignment_loss.h"
#include "model/trainable/trainable_backbone.h"
#include "recipes/dlm_sampler.h"
#include "tokenizer/tokenizer.h"

namespace strata::recipes {

model::AlignmentOptions alignmentOptionsFrom(const engine::ResolvedConfig& config);

/** The tokenizer's own mask token when it has one inside the model's vocabulary, else −1
 *  (TrainableBackbone then adds [MASK]). ConfigError naming `modelFolder` when the tokenizer
 *  has more tokens than the model. */
int64_t maskTokenFor(const tokenizer::Tokenizer& tokenizer, int64_t modelVocab,
                     const std::filesystem::path& modelFolder);

struct LoadedConversion {
  engine::ResolvedConfig config;
  std::unique_ptr<tokenizer::Tokenizer> tokenizer;
  model::TrainableBackbone model{nullptr};
  int64_t checkpointStep = 0;
};

/** FormatError / IoError naming the folder when it is not a repr_align run, its source model
 *  is gone, or no checkpoint verifies. `step`: that checkpoint instead of the best/newest.
 *  `device`: where the model goes ("cpu", "cuda" or "auto", engine/device_choice.h). */
LoadedConversion loadConversionRun(const std::filesystem::path& runFolder,
                                   std::optional<int64_t> step = std::nullopt,
                                   const std::string& device = "auto");

/** Iterative confidence-ordered unmasking with the converted model (bidirectional, shift:
 *  position i's logits predict token i + 1). blockSize 0: the whole continuation is one block
 *  with S steps; > 0: blocks of that many positions, left to right, S steps each. */
DlmSample sampleConverted(model::TrainableBackbone& model, const tokenizer::Tokenizer& tokenizer,
                          const std::string& prompt, const DlmSamplingConfig& config,
                          int64_t defaultSteps, int64_t blockSize);

/** loadConversionRun + sampleConverted with the run's sample_steps and sample_block. */
DlmSample sampleConversionRun(const std::filesystem::path& runFolder, const std::string& prompt,
                              const DlmSamplingConfig& config);

}  // namespace strata::recipes
