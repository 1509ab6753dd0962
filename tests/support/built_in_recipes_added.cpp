// Each test program (core, device and view tests) is a front end too: it adds the built-in
// recipes to the engine's catalog before main, as strata-cli's and strata's main do.

#include "recipes/built_in_recipes.h"

namespace {
const bool kAdded = (strata::recipes::addBuiltInRecipes(), true);
}  // namespace
