// Starting and resuming runs (see training_run.h): each run to its recipe's runner.

#include "engine/training_run.h"

#include "common/error.h"
#include "common/scratch_folder.h"
#include "engine/recipe_catalog.h"
#include "engine/run_manifest.h"
#include "engine/training_memory.h"

namespace strata::engine {

namespace fs = std::filesystem;

bool isLoopbackAddress(const std::string& address) {
  return address == "127.0.0.1" || address == "localhost";
}

TrainingSummary startTraining(const TrainingRequest& request, JobContext& job) {
  return findRecipe(request.recipe).runner->start(request, job);
}

TrainingPlanPreview planTraining(TrainingRequest request, JobContext& job) {
  // The processes of one machine are planned as its own run would plan them (each with its
  // share of the batch, all of them sharing the memory); nothing connects to a peer.
  if (request.distributed.rank != 0 || !isLoopbackAddress(request.distributed.masterAddress))
    throw ConfigError("--plan", "world-size",
                      "plans the processes of this machine: give them with --nproc");
  const CatalogRecipe recipe = findRecipe(request.recipe);
  const ScratchFolder scratch("strata-plan-");
  request.runFolder = scratch.path() / "run";
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
