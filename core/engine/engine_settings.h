#pragma once
// The settings every recipe shares because the training loop implements them: schedule,
// optimizer, batch geometry, cadence of logs/evaluations/checkpoints, device and precision.
// A recipe's schema is these followed by its own (engine/recipe_catalog.h).

#include <vector>

#include "engine/config_schema.h"

namespace strata::engine {

std::vector<SettingSpec> engineSettings();

/** Settings that may change on resume without changing the trajectory. */
bool settingMayChangeOnResume(const std::string& key);

}  // namespace strata::engine
