// repr_align settings → objects, loading and sampling a converted model (see repr_align_files.h).

#include "recipes/repr_align/repr_align_files.h"

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/text_file.h"
#include "engine/device_choice.h"
#include "engine/recipe_catalog.h"
#include "engine/run_folder.h"
#include "model/diffusion/dcdm_masks.h"
#include "recipes/run_config.h"
#include "recipes/unmasking.h"

namespace strata::recipes {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

model::AlignmentOptions alignmentOptionsFrom(const engine::ResolvedConfig& c) {
  model::AlignmentOptions options;
  options.lambda = c.real("lambda");
  options.distance = c.text("align_distance") == "l2" ? model::AlignmentDistance::L2
                                                      : model::AlignmentDistance::Cosine;
  const std::string weighting = c.text("ce_weighting");
  options.ceWeighting =
      weighting == "uniform" ? model::CeWeighting::Uniform : model::CeWeighting::Elbo;
  options.minTime = c.real("min_time");
  return options;
}

int64_t maskTokenFor(const tokenizer::Tokenizer& tokenizer, int64_t modelVocab,
                     const fs::path& modelFolder) {
  if (tokenizer.vocabSize() > modelVocab)
    throw ConfigError(modelFolder / "config.json", "vocab_size",
                      "is " + std::to_string(modelVocab) + " but the tokenizer has " +
                          std::to_string(tokenizer.vocabSize()) + " tokens");
  if (const auto mask = tokenizer.maskId(); mask && *mask < modelVocab) return *mask;
  return -1;
}

LoadedConversion loadConversionRun(const fs::path& runFolder, std::optional<int64_t> step,
                                   const std::string& device) {
  const engine::RunManifest run =
      engine::requireRun(runFolder, "repr_align", "REPR-ALIGN conversion (repr_align)");
  LoadedConversion loaded;
  loaded.config = runConfig(run);
  const fs::path modelFolder = loaded.config.text("model");
  if (!fs::is_regular_file(modelFolder / "config.json"))
    throw IoError(modelFolder,
                  "the run's source model is gone: the student is rebuilt from its "
                  "config.json and tensors before the checkpoint's weights are loaded");
  loaded.tokenizer = tokenizer::loadTokenizer(runFolder);
  loaded.model = model::TrainableBackbone(
      modelFolder,
      maskTokenFor(*loaded.tokenizer, io::readModelConfig(modelFolder / "config.json").vocabSize,
                   modelFolder));
  const auto [checkpointStep, checkpointFolder] =
      engine::RunFolder(runFolder).checkpoints().chosen(step);
  torch::serialize::InputArchive archive;
  archive.load_from((checkpointFolder / "model.pt").string());
  loaded.model->load(archive);
  loaded.model->to(engine::computeDevice(device, "device"));
  loaded.model->eval();
  loaded.checkpointStep = checkpointStep;
  return loaded;
}

DlmSample sampleConverted(model::TrainableBackbone& model, const tokenizer::Tokenizer& tokenizer,
                          const std::string& promptText, const DlmSamplingConfig& config,
                          int64_t defaultSteps, int64_t blockSize) {
  if (config.newTokens < 1) throw Error("sampling: ask for at least one new token");
  const std::vector<int32_t> prompt = tokenizer.encode(promptText, true);
  if (prompt.empty())
    throw Error(
        "sampling: the prompt gives no token, and the converted model predicts token i + 1 "
        "from position i: give at least one token");
  const io::ModelConfig& shape = model->config();
  const int64_t length = static_cast<int64_t>(prompt.size()) + config.newTokens;
  if (shape.positionsEndAtMax() && length > shape.maxPositions)
    throw Error("sampling: prompt + new tokens (" + std::to_string(length) +
                ") exceed the model's " + std::to_string(shape.maxPositions) + " positions");
  const int64_t steps = config.stepsPerChunk > 0 ? config.stepsPerChunk : defaultSteps;
  const torch::Device device = model->parameters().front().device();
  UnmaskingModel unmasking;
  unmasking.maskId = model->maskId();
  unmasking.chunkIds = [&](const torch::Tensor& x) {
    // The prompt is chunk 0 (nothing to reveal there); block b of the continuation is chunk b + 1.
    if (blockSize <= 0) return torch::zeros_like(x);
    const int64_t promptLength = static_cast<int64_t>(prompt.size());
    torch::Tensor ids = torch::zeros_like(x);
    ids.slice(1, promptLength) =
        model::positionalChunkIds(x.size(1) - promptLength, blockSize).unsqueeze(0) + 1;
    return ids;
  };
  unmasking.logits = [&](const torch::Tensor& x, const torch::Tensor&) {
    model::AttentionOptions bidirectional;
    bidirectional.causal = false;
    const torch::Tensor logits = model->forward(x.to(device), bidirectional, false).logits[0].cpu();
    // Shift: row i − 1 predicts position i; position 0 is prompt and never asked for.
    return torch::cat({logits.slice(0, 0, 1), logits.slice(0, 0, -1)});
  };
  DlmSample sample = unmaskChunkByChunk(unmasking, prompt, config.newTokens, steps, config);
  sample.text = tokenizer.decode(sample.tokens, true);
  return sample;
}

DlmSample sampleConversionRun(const fs::path& runFolder, const std::string& prompt,
                              const DlmSamplingConfig& config) {
  LoadedConversion run = loadConversionRun(runFolder, std::nullopt, config.device);
  return sampleConverted(run.model, *run.tokenizer, prompt, config,
                         run.config.integer("sample_steps"), run.config.integer("sample_block"));
}

}  // namespace strata::recipes
