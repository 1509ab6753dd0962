#pragma once
// The recipes this process can train, by name: the built-in recipes, which the front ends add
// at start (recipes/built_in_recipes.h), then the installed plugins' recipes. The engine trains
// whatever the catalog holds and never includes recipes/. No torch here: the GUI's launcher
// reads the schemas.

#include <memory>
#include <string>
#include <vector>

#include "engine/config_schema.h"

namespace strata {

class Recipe;
namespace plugin {
struct RecipeEntry;
}

/** A recipe that trains in the training loop. */
struct CatalogRecipe {
  std::string name;
  std::string description;
  std::vector<SettingSpec> (*settings)() = nullptr;  ///< its own settings, after the engine's
  std::unique_ptr<Recipe> (*make)() = nullptr;
};

/** Adds `recipe`; adding a name again replaces it (front ends may add the built-ins twice). */
void addRecipe(CatalogRecipe recipe);

/** The added recipes first, then those of the installed plugins. */
std::vector<std::string> recipeNames();
/** The engine's settings followed by the recipe's own. Throws ConfigError naming the recipe
 *  when there is no such recipe. */
ConfigSchema recipeSchema(const std::string& recipe);
/** The installed plugins' recipe called `name` (an added recipe of the same name wins), or
 *  nullptr. Plugin recipes run as plugin jobs (engine/plugin_training.h). */
const plugin::RecipeEntry* findPluginRecipe(const std::string& name);
/** A fresh instance of an added recipe, for the training loop. Throws ConfigError naming the
 *  recipe when there is no such recipe or it is a plugin's. */
std::unique_ptr<Recipe> makeRecipe(const std::string& recipe);

}  // namespace strata
