#include "recipes/run_config.h"

#include "engine/recipe_catalog.h"

namespace strata::recipes {

engine::ResolvedConfig runConfig(const engine::RunManifest& run) {
  const engine::ConfigSchema schema = engine::recipeSchema(run.recipe);
  engine::ResolvedConfig config(schema);
  engine::applyConfigJson(schema, run.config(), run.file, config);
  return config;
}

}  // namespace strata::recipes
