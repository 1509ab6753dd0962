// A finished run evaluated again on other held-out data (see held_out_evaluation.h).

#include "studies/held_out_evaluation.h"

#include <torch/torch.h>

#include "common/job.h"
#include "engine/config_schema.h"
#include "engine/device_choice.h"
#include "engine/recipe.h"
#include "engine/recipe_catalog.h"
#include "engine/run_folder.h"
#include "engine/run_manifest.h"
#include "recipes/run_config.h"

namespace strata::studies {

namespace fs = std::filesystem;

std::map<std::string, double> evaluateRunAgain(const fs::path& run,
                                               const std::vector<std::string>& overrides,
                                               const std::string& device) {
  const engine::RunManifest manifest = engine::readRunManifest(run);
  engine::ResolvedConfig config = recipes::runConfig(manifest);
  const engine::ConfigSchema schema = engine::recipeSchema(manifest.recipe);
  for (const auto& o : overrides) engine::applyOverride(schema, o, config);
  const auto [step, checkpoint] = engine::RunFolder(run).checkpoints().chosen(std::nullopt);

  const fs::path scratch = run / "held_out_evaluation";
  fs::create_directories(scratch);
  std::unique_ptr<engine::Recipe> recipe = engine::loopRecipeFactory(manifest.recipe)();
  NullProgressSink quiet;
  JobContext job(quiet, CancellationToken());
  const engine::RecipeSetup setup{config, scratch, engine::computeDevice(device, "device")};
  std::map<std::string, double> metrics;
  try {
    recipe->build(setup, job);
    torch::serialize::InputArchive archive;
    archive.load_from((checkpoint / "model.pt").string());
    recipe->model().load(archive);
    recipe->model().to(setup.device);
    // As the training loop evaluates: no gradients, the model in evaluation mode.
    torch::NoGradGuard noGrad;
    recipe->model().eval();
    metrics = recipe->evaluate(step);
  } catch (...) {
    fs::remove_all(scratch);
    throw;
  }
  fs::remove_all(scratch);
  return metrics;
}

}  // namespace strata::studies
