#include "recipes/run_config.h"

#include "engine/recipe_catalog.h"

namespace strata::recipes {

ResolvedConfig runConfig(const RunManifest& run) {
  const ConfigSchema schema = recipeSchema(run.recipe);
  ResolvedConfig config(schema);
  applyConfigJson(schema, run.config(), run.file, config);
  return config;
}

}  // namespace strata::recipes
