#pragma once
// The recipes Strata can train, by name, and their configuration schemas (the engine's settings
// followed by the recipe's own). No torch here: the GUI's launcher reads the schemas.

#include <memory>
#include <string>
#include <vector>

#include "engine/config_schema.h"

namespace strata {
namespace plugin {
struct RecipeEntry;
}

/** Built-in recipes first, then those of the installed plugins. */
std::vector<std::string> recipeNames();
/** Throws ConfigError naming the recipe when there is no such recipe. */
ConfigSchema recipeSchema(const std::string& recipe);
/** The installed plugins' recipe called `name` (a built-in of the same name wins), or nullptr. */
const plugin::RecipeEntry* findPluginRecipe(const std::string& name);

}  // namespace strata
