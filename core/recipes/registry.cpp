// The recipes Strata can train (see registry.h and recipe_factory.h), and those that plugins
// declare (plugin/strata_plugin.h): listed with their settings, not trainable yet.

#include "recipes/registry.h"

#include "common/error.h"
#include "engine/engine_settings.h"
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

/** A plugin's recipe called `name` (a built-in of the same name wins), or nullptr. */
const plugin::RecipeEntry* pluginRecipe(const std::string& name) {
  if (isBuiltIn(name)) return nullptr;
  for (const auto& p : plugin::installedPlugins().plugins)
    for (const auto& r : p.recipes)
      if (r.name == name) return &r;
  return nullptr;
}

const RecipeEntry& entry(const std::string& name) {
  for (const auto& e : entries())
    if (name == e.name) return e;
  if (const auto* r = pluginRecipe(name))
    throw ConfigError("recipe", name,
                      "comes from the plugin " + r->file.string() +
                          "; Strata lists plugin recipes but cannot train them yet (the plugin ABI "
                          "has no model or tensor interface)");
  std::string known;
  for (const auto& e : entries()) known += (known.empty() ? "" : ", ") + std::string(e.name);
  throw ConfigError("recipe", name, "is not a recipe Strata knows (known: " + known + ")");
}

}  // namespace

std::vector<std::string> recipeNames() {
  std::vector<std::string> names;
  for (const auto& e : entries()) names.emplace_back(e.name);
  for (const auto& p : plugin::installedPlugins().plugins)
    for (const auto& r : p.recipes)
      if (!isBuiltIn(r.name)) names.push_back(r.name);
  return names;
}

ConfigSchema recipeSchema(const std::string& recipe) {
  if (const auto* r = pluginRecipe(recipe)) {
    ConfigSchema schema{r->name, r->description + " (plugin " + r->file.filename().string() +
                                     "; listed, not trainable yet)", {}};
    for (const auto& s : r->settings)
      schema.settings.push_back(makeSetting(s.name, SettingType::Text, s.defaultValue, s.description, "plugin"));
    return schema;
  }
  const RecipeEntry& e = entry(recipe);
  ConfigSchema schema{e.name, e.description, engineSettings()};
  for (auto& spec : e.settings()) schema.settings.push_back(std::move(spec));
  return schema;
}

std::unique_ptr<Recipe> makeRecipe(const std::string& recipe) { return entry(recipe).make(); }

}  // namespace strata
