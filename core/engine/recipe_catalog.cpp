// The recipe catalog (see recipe_catalog.h). Recipes are added before any job starts (by the
// front ends' main or a test's static registration), so reading needs no lock.

#include "engine/recipe_catalog.h"

#include "common/error.h"
#include "engine/engine_settings.h"
#include "engine/plugin_training.h"
#include "engine/recipe.h"
#include "plugin/plugin_loader.h"

namespace strata {
namespace {

std::vector<CatalogRecipe>& added() {
  static std::vector<CatalogRecipe> recipes;
  return recipes;
}

const CatalogRecipe* findAdded(const std::string& name) {
  for (const auto& recipe : added())
    if (recipe.name == name) return &recipe;
  return nullptr;
}

const CatalogRecipe& addedRecipe(const std::string& name) {
  if (const auto* recipe = findAdded(name)) return *recipe;
  if (const auto* r = findPluginRecipe(name))  // the training loop never asks for these
    throw ConfigError("recipe", name,
                      "comes from the plugin " + r->file.string() +
                          " and runs as a plugin job (engine/plugin_training.h), not in the "
                          "training loop");
  std::string known;
  for (const auto& recipe : added()) known += (known.empty() ? "" : ", ") + recipe.name;
  if (known.empty()) known = "none were added: the program did not add the built-in recipes";
  throw ConfigError("recipe", name, "is not a recipe Strata knows (known: " + known + ")");
}

}  // namespace

void addRecipe(CatalogRecipe recipe) {
  for (auto& existing : added())
    if (existing.name == recipe.name) {
      existing = std::move(recipe);
      return;
    }
  added().push_back(std::move(recipe));
}

const plugin::RecipeEntry* findPluginRecipe(const std::string& name) {
  if (findAdded(name)) return nullptr;
  return plugin::installedPlugins().findRecipe(name);
}

std::vector<std::string> recipeNames() {
  std::vector<std::string> names;
  for (const auto& recipe : added()) names.push_back(recipe.name);
  for (const auto& p : plugin::installedPlugins().plugins)
    for (const auto& r : p.recipes)
      if (!findAdded(r.name)) names.push_back(r.name);
  return names;
}

ConfigSchema recipeSchema(const std::string& recipe) {
  if (const auto* r = findPluginRecipe(recipe)) return pluginRecipeSchema(*r);
  const CatalogRecipe& entry = addedRecipe(recipe);
  ConfigSchema schema{entry.name, entry.description, engineSettings()};
  for (auto& spec : entry.settings()) schema.settings.push_back(std::move(spec));
  return schema;
}

std::unique_ptr<Recipe> makeRecipe(const std::string& recipe) { return addedRecipe(recipe).make(); }

}  // namespace strata
