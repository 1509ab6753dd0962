// dcdm settings → objects, loading a trained run (see dcdm_files.h).

#include "recipes/dcdm/dcdm_files.h"

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/text_file.h"
#include "engine/recipe_catalog.h"
#include "engine/run_folder.h"
#include "recipes/run_config.h"

namespace strata::recipes {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

model::MaskedDiffusion maskedDiffusionFrom(const engine::ResolvedConfig& c) {
  model::MaskedDiffusion diffusion;
  diffusion.schedule =
      *model::parseMaskSchedule(c.text("schedule"));  // the schema allows only valid names
  diffusion.elboWeighting = c.boolean("elbo_weighting");
  diffusion.antithetic = c.boolean("antithetic");
  return diffusion;
}

DlmStepBudget dlmStepBudgetFrom(const engine::ResolvedConfig& config) {
  DlmStepBudget budget;
  budget.stepsPerToken = config.real("sample_steps_per_token");
  budget.stepsPerChunk = config.integer("sample_steps");
  return budget;
}

model::DcdmTransformerConfig dcdmConfigFrom(const engine::ResolvedConfig& c, int64_t vocab) {
  model::DcdmTransformerConfig config;
  config.vocab = vocab;
  config.dim = c.integer("dim");
  config.layers = c.integer("layers");
  config.heads = c.integer("heads");
  config.mlp = c.integer("mlp");
  config.maxPositions = std::max<int64_t>(c.integer("seq_len"), 1024);
  config.variant = model::parseDlmVariant(c.text("variant"), "the dcdm run configuration");
  config.blockSize = c.integer("block_size");
  config.chunks = c.integer("chunks");
  config.subspaceRank = c.integer("subspace_rank");
  const fs::path source = "the dcdm run configuration";
  if (config.dim % config.heads != 0) throw ConfigError(source, "heads", "must divide dim");
  if (config.subspaceRank > config.dim)
    throw ConfigError(source, "subspace_rank", "must be at most dim");
  return config;
}

namespace {

LoadedDlm loadDlm(const fs::path& runFolder, const torch::Device& device,
                  std::optional<int64_t> step) {
  const engine::RunManifest run = engine::requireRun(runFolder, "dcdm", "masked diffusion (dcdm)");
  LoadedDlm dlm;
  dlm.config = runConfig(run);
  dlm.tokenizer = tokenizer::loadTokenizer(runFolder);
  dlm.model = model::DcdmTransformer(dcdmConfigFrom(dlm.config, dlm.tokenizer->vocabSize()));
  const auto [checkpointStep, checkpointFolder] =
      engine::RunFolder(runFolder).checkpoints().chosen(step);
  torch::serialize::InputArchive archive;
  archive.load_from((checkpointFolder / "model.pt").string());
  dlm.model->load(archive);
  dlm.model->to(device);
  dlm.model->eval();
  dlm.checkpointStep = checkpointStep;
  return dlm;
}

}  // namespace

LoadedDlm loadDlmRun(const fs::path& runFolder, const torch::Device& device) {
  return loadDlm(runFolder, device, std::nullopt);
}

LoadedDlm loadDlmRunAt(const fs::path& runFolder, int64_t step) {
  return loadDlm(runFolder, torch::kCPU, step);
}

}  // namespace strata::recipes
