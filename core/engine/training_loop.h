#pragma once
// The loop behind the built-in recipes' runs (engine/loop_recipe.cpp; internal to the engine).

#include <filesystem>
#include <map>
#include <string>

#include "engine/config_schema.h"
#include "engine/recipe_catalog.h"
#include "engine/training_run.h"

namespace strata {

class JobContext;

}  // namespace strata

namespace strata::engine {

struct TrainingLoopInputs {
  ConfigSchema schema;
  std::string recipe;
  RecipeFactory make = nullptr;  ///< the recipe's fresh instances
  ResolvedConfig config;
  std::filesystem::path folder;
  bool resume = false;
  std::string command;
  DistributedSetup distributed;
  TrainingControl control;
  bool planOnly = false;  ///< stop at the recipe's memory plan (planTraining)
};

/** run.json: recipe, creation time, command, code and library versions, machine, device, seed,
 *  the full resolved config, and the recipe's description (written before the recipe builds,
 *  so a run that fails there is still listed, then again with the description). */
void writeRunJson(const TrainingLoopInputs& inputs,
                  const std::map<std::string, std::string>& description, const std::string& device);

TrainingSummary runTrainingLoop(const TrainingLoopInputs& inputs, JobContext& job);

}  // namespace strata::engine
