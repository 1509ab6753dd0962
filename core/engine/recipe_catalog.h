#pragma once
// The recipes this process can train, by name, each with the runner that trains it: the
// built-in recipes, which the front ends add at start (recipes/built_in_recipes.h) and which
// run in the training loop (engine/loop_recipe.h), then the installed plugins' recipes, which
// run their own loop (engine/plugin_training.h): one entry each, made once, when the catalog is
// first read. startTraining and resumeTraining (engine/training_run.h) hand every run to its
// recipe's runner, whatever kind it is; the engine never includes recipes/. No torch here: the
// GUI's launcher reads the schemas.

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "engine/config_schema.h"
#include "engine/training_run.h"

namespace strata {

namespace plugin {
struct RecipeEntry;
}

}  // namespace strata

namespace strata::engine {

class Recipe;
struct RunManifest;

/** A fresh instance of a recipe, for the training loop. */
using RecipeFactory = std::unique_ptr<Recipe> (*)();

/** How a catalog recipe's runs are trained. */
class RecipeRunner {
 public:
  virtual ~RecipeRunner() = default;
  /** Every setting of a run: the engine's and the recipe's own. */
  virtual ConfigSchema schema() const = 0;
  /** A new run into request.runFolder (see startTraining). */
  virtual TrainingSummary start(const TrainingRequest& request, JobContext& job) const = 0;
  /** The run of `run` (its run.json) continued (see resumeTraining). */
  virtual TrainingSummary resume(const RunManifest& run, const ResumeRequest& request,
                                 JobContext& job) const = 0;
  /** Fresh instances of the recipe for the training loop (the held-out evaluation rebuilds a
   *  finished run's model). Throws ConfigError naming the recipe when it runs a loop of its
   *  own (a plugin's). */
  virtual RecipeFactory trainingLoopFactory() const = 0;
};

struct CatalogRecipe {
  std::string name;
  std::string description;
  std::shared_ptr<const RecipeRunner> runner;
};

/** Adds `recipe`; adding a name again replaces it (front ends may add the built-ins twice). */
void addRecipe(CatalogRecipe recipe);

/** The added recipes first, then those of the installed plugins. */
std::vector<std::string> recipeNames();
/** The recipe called `name`: an added one, else an installed plugin's. Throws ConfigError
 *  naming the recipe and the known ones when there is none. */
CatalogRecipe findRecipe(const std::string& name);
/** The recipe that continues `run`: its plugin's when a plugin started it (ConfigError naming
 *  that plugin when no loaded plugin provides the recipe now), else findRecipe(run.recipe). */
CatalogRecipe recipeOfRun(const RunManifest& run);
/** findRecipe(recipe).runner->schema(). */
ConfigSchema recipeSchema(const std::string& recipe);
/** The installed plugins' recipe called `name` (an added recipe of the same name wins), or
 *  nullptr: what a plugin declares of it (its settings, its file). */
const plugin::RecipeEntry* findPluginRecipe(const std::string& name);
/** findRecipe(recipe).runner->trainingLoopFactory(): ConfigError naming the recipe when there
 *  is no such recipe or it runs a loop of its own. */
RecipeFactory loopRecipeFactory(const std::string& recipe);

}  // namespace strata::engine
