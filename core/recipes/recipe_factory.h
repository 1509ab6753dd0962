#pragma once
// Makes a recipe by name (the training loop's side of recipes/registry.h).

#include <memory>
#include <string>

namespace strata {

class Recipe;

/** Throws ConfigError naming the recipe when there is no such recipe. */
std::unique_ptr<Recipe> makeRecipe(const std::string& recipe);

}  // namespace strata
