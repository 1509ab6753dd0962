// The recipe catalog (see recipe_catalog.h). Recipes are added before any job starts (by the
// front ends' main or a test's static registration); the plugins' entries are made once, on
// the first read, thread-safely (a function-local static), so reading needs no lock.

#include "engine/recipe_catalog.h"

#include "common/error.h"
#include "engine/plugin_training.h"
#include "engine/run_manifest.h"
#include "plugin/plugin_loader.h"

namespace strata::engine {

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

/** An installed plugin's recipe as a catalog entry, with what the plugin declares of it. */
struct PluginRecipe {
  CatalogRecipe entry;
  const plugin::RecipeEntry* declared;  ///< installedPlugins()'s, alive as long as the process
};

/** Every installed plugin's recipe, in plugin order, made once. */
const std::vector<PluginRecipe>& pluginRecipes() {
  static const std::vector<PluginRecipe> recipes = [] {
    std::vector<PluginRecipe> made;
    for (const auto& p : plugin::installedPlugins().plugins)
      for (const auto& r : p.recipes) made.push_back({pluginCatalogRecipe(r), &r});
    return made;
  }();
  return recipes;
}

/** The installed plugins' recipe called `name`, whether or not an added one shadows it. */
const PluginRecipe* findInstalled(const std::string& name) {
  for (const auto& recipe : pluginRecipes())
    if (recipe.entry.name == name) return &recipe;
  return nullptr;
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
  const PluginRecipe* recipe = findInstalled(name);
  return recipe ? recipe->declared : nullptr;
}

std::vector<std::string> recipeNames() {
  std::vector<std::string> names;
  for (const auto& recipe : added()) names.push_back(recipe.name);
  for (const auto& recipe : pluginRecipes())
    if (!findAdded(recipe.entry.name)) names.push_back(recipe.entry.name);
  return names;
}

CatalogRecipe findRecipe(const std::string& name) {
  if (const auto* recipe = findAdded(name)) return *recipe;
  if (const auto* recipe = findInstalled(name)) return recipe->entry;
  std::string known;
  for (const auto& recipe : recipeNames()) known += (known.empty() ? "" : ", ") + recipe;
  if (known.empty()) known = "none were added: the program did not add the built-in recipes";
  throw ConfigError("recipe", name, "is not a recipe Strata knows (known: " + known + ")");
}

CatalogRecipe recipeOfRun(const RunManifest& run) {
  if (!run.plugin) return findRecipe(run.recipe);
  if (const auto* recipe = findInstalled(run.recipe)) return recipe->entry;
  throw ConfigError(run.file, "plugin",
                    "the run's recipe " + run.recipe + " came from the plugin " + run.plugin->name +
                        " (" + run.plugin->file +
                        "), and no loaded plugin provides it now (see `strata-cli plugins`)");
}

ConfigSchema recipeSchema(const std::string& recipe) { return findRecipe(recipe).runner->schema(); }

RecipeFactory loopRecipeFactory(const std::string& name) {
  return findRecipe(name).runner->trainingLoopFactory();
}

}  // namespace strata::engine
