// One run of a comparison study (see study_runs.h).

#include "recipes/study_runs.h"

#include "engine/recipe_catalog.h"
#include "engine/run_folder.h"
#include "engine/training_run.h"

namespace strata::recipes {

namespace fs = std::filesystem;

fs::path trainStudyRun(const std::string& recipe, const fs::path& studyFolder,
                       const std::vector<std::string>& shared, const StudyVariant& variant,
                       const std::string& command, JobContext& job) {
  const fs::path run = studyFolder / variant.name;
  if (engine::isRunFolder(run)) {
    if (engine::readRunStatus(run).state != engine::RunState::Finished)
      engine::resumeTraining(run, job);
    return run;
  }
  fs::create_directories(studyFolder);
  const engine::ConfigSchema schema = engine::recipeSchema(recipe);
  engine::TrainingRequest request;
  request.recipe = recipe;
  request.config = engine::ResolvedConfig(schema);
  for (const std::string& s : shared) engine::applyOverride(schema, s, request.config);
  for (const std::string& s : variant.settings) engine::applyOverride(schema, s, request.config);
  request.runFolder = run;
  request.command = command + " (" + variant.name + ")";
  engine::startTraining(request, job);
  return run;
}

}  // namespace strata::recipes
