// Starting and resuming runs (see training_run.h): each run to its recipe's runner.

#include "engine/training_run.h"

#include <stdlib.h>

#include <system_error>

#include "common/error.h"
#include "engine/recipe_catalog.h"
#include "engine/run_manifest.h"
#include "engine/training_memory.h"

namespace strata::engine {

namespace fs = std::filesystem;

TrainingSummary startTraining(const TrainingRequest& request, JobContext& job) {
  return findRecipe(request.recipe).runner->start(request, job);
}

TrainingPlanPreview planTraining(TrainingRequest request, JobContext& job) {
  if (request.distributed.active())
    throw ConfigError("--plan", "nproc",
                      "plans one process of a run; plan without --nproc / --world-size");
  const CatalogRecipe recipe = findRecipe(request.recipe);
  std::string pattern = (fs::temp_directory_path() / "strata-plan-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw IoError(pattern, lastSystemError());
  const fs::path folder = pattern;
  struct Removed {
    fs::path folder;
    ~Removed() {
      std::error_code ignored;
      fs::remove_all(folder, ignored);
    }
  } removed{folder};
  request.runFolder = folder / "run";
  request.planOnly = true;
  try {
    recipe.runner->start(request, job);
  } catch (const PlanReached& reached) {
    return reached.preview;
  }
  throw Error("recipe " + request.recipe + " ran without planning its memory");
}

TrainingSummary resumeTraining(const fs::path& runFolder, JobContext& job,
                               const DistributedSetup& distributed, const TrainingControl& control,
                               const std::vector<std::string>& overrides) {
  const RunManifest run = readRunManifest(runFolder);
  return recipeOfRun(run).runner->resume(run, {runFolder, distributed, control, overrides}, job);
}

}  // namespace strata::engine
