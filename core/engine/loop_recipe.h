#pragma once
// A recipe that trains in the training loop (engine/training_loop.cpp), as a catalog entry: the
// built-in recipes are added this way (recipes/built_in_recipes.cpp). Its runner checks the
// configuration, creates the run folder and hands the run to the loop; on resume it reads the
// configuration back from run.json and applies the allowed overrides. No torch here.

#include <memory>
#include <string>
#include <vector>

#include "engine/recipe_catalog.h"

namespace strata::engine {

/** A catalog entry whose runs the training loop trains: its settings follow the engine's, and
 *  `make` gives the loop a fresh instance. */
CatalogRecipe loopRecipe(std::string name, std::string description,
                         std::vector<SettingSpec> (*settings)(), RecipeFactory make);

}  // namespace strata::engine
