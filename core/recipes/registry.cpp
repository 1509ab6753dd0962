// The recipes Strata can train (see registry.h and recipe_factory.h), and those that plugins
// declare (plugin/strata_plugin.h), which run through engine/plugin_training.h.

#include "recipes/registry.h"

#include "common/error.h"
#include "engine/engine_settings.h"
#include "engine/plugin_training.h"
#include "engine/recipe.h"
#include "plugin/plugin_loader.h"
#include "recipes/bridge.h"
#include "recipes/dcdm.h"
#include "recipes/pretrain.h"
#include "recipes/recipe_factory.h"
#include "recipes/repr_align.h"

namespace strata {
namespace {

struct RecipeEntry {
  const char* name;
  const char* description;
  std::vector<SettingSpec> (*settings)();
  std::unique_ptr<Recipe> (*make)();
};

const std::vector<RecipeEntry>& entries() {
  static const std::vector<RecipeEntry> all = {
      {"pretrain", "train a small Llama (causal LM) from scratch on a local corpus",
       pretrainSettings, makePretrainRecipe},
      {"bridge", "DiHAL: a diffusion bridge that rebuilds h_{l*} of a frozen model from its "
                 "input embeddings",
       bridgeSettings, makeBridgeRecipe},
      {"dcdm", "masked diffusion LM: mdlm, bdlm (positional blocks) or dcdm (chunking attention)",
       dcdmSettings, makeDcdmRecipe},
      {"repr_align", "REPR-ALIGN: convert an autoregressive model into a masked diffusion LM, "
                     "its bidirectional student aligned layer by layer to the frozen causal teacher",
       reprAlignSettings, makeReprAlignRecipe},
  };
  return all;
}

bool isBuiltIn(const std::string& name) {
  for (const auto& e : entries())
    if (name == e.name) return true;
  return false;
}

const RecipeEntry& entry(const std::string& name) {
  for (const auto& e : entries())
    if (name == e.name) return e;
  if (const auto* r = findPluginRecipe(name))  // the training loop never asks for these
    throw ConfigError("recipe", name,
                      "comes from the plugin " + r->file.string() +
                          " and runs as a plugin job (engine/plugin_training.h), not in the "
                          "training loop");
  std::string known;
  for (const auto& e : entries()) known += (known.empty() ? "" : ", ") + std::string(e.name);
  throw ConfigError("recipe", name, "is not a recipe Strata knows (known: " + known + ")");
}

}  // namespace

const plugin::RecipeEntry* findPluginRecipe(const std::string& name) {
  if (isBuiltIn(name)) return nullptr;
  return plugin::installedPlugins().findRecipe(name);
}

std::vector<std::string> recipeNames() {
  std::vector<std::string> names;
  for (const auto& e : entries()) names.emplace_back(e.name);
  for (const auto& p : plugin::installedPlugins().plugins)
    for (const auto& r : p.recipes)
      if (!isBuiltIn(r.name)) names.push_back(r.name);
  return names;
}

ConfigSchema recipeSchema(const std::string& recipe) {
  if (const auto* r = findPluginRecipe(recipe)) return pluginRecipeSchema(*r);
  const RecipeEntry& e = entry(recipe);
  ConfigSchema schema{e.name, e.description, engineSettings()};
  for (auto& spec : e.settings()) schema.settings.push_back(std::move(spec));
  return schema;
}

std::unique_ptr<Recipe> makeRecipe(const std::string& recipe) { return entry(recipe).make(); }

}  // namespace strata
