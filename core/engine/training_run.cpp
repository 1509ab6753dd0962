// Starting and resuming runs (see training_run.h): each run to its recipe's runner.

#include "engine/training_run.h"

#include "engine/recipe_catalog.h"
#include "engine/run_manifest.h"

namespace strata::engine {

namespace fs = std::filesystem;

TrainingSummary startTraining(const TrainingRequest& request, JobContext& job) {
  return findRecipe(request.recipe).runner->start(request, job);
}

TrainingSummary resumeTraining(const fs::path& runFolder, JobContext& job,
                               const DistributedSetup& distributed, const TrainingControl& control,
                               const std::vector<std::string>& overrides) {
  const RunManifest run = readRunManifest(runFolder);
  return recipeOfRun(run).runner->resume(run, {runFolder, distributed, control, overrides}, job);
}

}  // namespace strata::engine
