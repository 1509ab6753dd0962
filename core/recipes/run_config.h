#pragma once
// A run's settings as its recipe's schema resolves them: how core reads run.json's "config"
// (types checked, settings added since the run started take their defaults).

#include "engine/config_schema.h"
#include "engine/run_manifest.h"

namespace strata::recipes {

/** The settings of `run` under recipeSchema(run.recipe). ConfigError/FormatError naming
 *  run.json for an unknown recipe, a missing "config" or a value of the wrong type. */
engine::ResolvedConfig runConfig(const engine::RunManifest& run);

}  // namespace strata::recipes
