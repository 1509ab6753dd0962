#pragma once
// The recipes Strata can train, by name, and their configuration schemas (the engine's settings
// followed by the recipe's own). No torch here: the GUI's launcher reads the schemas.

#include <memory>
#include <string>
#include <vector>

#include "engine/config_schema.h"

namespace strata {

std::vector<std::string> recipeNames();
/** Throws ConfigError naming the recipe when there is no such recipe. */
ConfigSchema recipeSchema(const std::string& recipe);

}  // namespace strata
