// One run of a study, started or continued (see study_runs.h).

#include "studies/study_runs.h"

#include "engine/recipe_catalog.h"
#include "engine/run_folder.h"
#include "engine/training_run.h"

namespace strata::studies {

namespace fs = std::filesystem;

void trainOrContinue(const std::string& recipe, const fs::path& run,
                     const std::vector<std::string>& settings, const std::string& command,
                     JobContext& job) {
  if (engine::isRunFolder(run)) {
    if (engine::readRunStatus(run).state != engine::RunState::Finished)
      engine::resumeTraining(run, job);
    return;
  }
  fs::create_directories(run.parent_path());
  const engine::ConfigSchema schema = engine::recipeSchema(recipe);
  engine::TrainingRequest request;
  request.recipe = recipe;
  request.config = engine::ResolvedConfig(schema);
  for (const std::string& s : settings) engine::applyOverride(schema, s, request.config);
  request.runFolder = run;
  request.command = command;
  engine::startTraining(request, job);
}

}  // namespace strata::studies
