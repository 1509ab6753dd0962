#pragma once
// Plugin recipes (plugin/strata_plugin.h) as training runs: the runner of a plugin's catalog
// entry (engine/recipe_catalog.h). startTraining / resumeTraining (training_run.h) send a
// plugin's recipe here, so `strata-cli train|resume`, the GUI's
// launcher and its Resume button drive them like the built-in recipes, into the same files:
//
//   run.json       recipe, plugin {name, version, file}, config (every setting, as text),
//                  created, command, code_version, machine
//   status.json    running / paused / stopped (cancelled, resumable) / finished / failed + error
//   run.lock       held while run() runs
//   metrics.jsonl  every StrataRecipeHost::metric call, one line per step (metrics_log.h),
//                  and the same scalars as TensorBoard events (events.out.tfevents.*)
//   anything else  the recipe's own (its checkpoints, its outputs)
//
// The lock, status, logs, resume cut and pause are engine/run_lifecycle.h's, as for the
// built-in recipes: a resumed run's logs are cut at the step before the first one the recipe
// reports again (it repeats from its own checkpoint).
//
// The plugin's run() is called on the job's thread, which blocks until it returns: its host
// forwards progress to the JobContext, metrics to metrics.jsonl, and answers cancelled() from
// the job's token (Ctrl-C, the GUI's Stop); while a TrainingControl pauses the run, cancelled()
// waits. A non-zero return or an escaping exception becomes an Error naming the recipe, its
// plugin and file, and the run is marked failed. No torch here.

#include <filesystem>
#include <string>
#include <vector>

#include "engine/config_schema.h"
#include "engine/recipe_catalog.h"
#include "engine/training_run.h"

namespace strata {

namespace plugin {
struct RecipeEntry;
}

}  // namespace strata

namespace strata::engine {

/** The recipe's settings as a schema: one Text setting per declared setting ("plugin" group). */
ConfigSchema pluginRecipeSchema(const plugin::RecipeEntry& recipe);

/** What run() receives: "name=value\n" per declared setting, in declaration order. Throws
 *  ConfigError for a value holding a line break. */
std::string pluginSettingsText(const plugin::RecipeEntry& recipe, const ResolvedConfig& config);

/**
 * Runs `recipe` into the new folder request.runFolder with request.config (validated against
 * pluginRecipeSchema). Returns when run() finished; throws CancelledError when it stopped for a
 * cancellation (run marked stopped), Error when it failed (run marked failed), ConfigError for
 * bad settings or a distributed setup (plugin recipes run in one process), IoError when the
 * folder already holds a run or another process holds its lock.
 */
TrainingSummary startPluginTraining(const plugin::RecipeEntry& recipe,
                                    const TrainingRequest& request, JobContext& job);

/**
 * Calls run() again on `runFolder` with the settings of its run.json (the recipe continues from
 * its own state there). A run marked finished is left as it is. `overrides` must be empty:
 * Strata cannot know which of a plugin's settings keep its trajectory.
 */
TrainingSummary resumePluginTraining(const plugin::RecipeEntry& recipe,
                                     const std::filesystem::path& runFolder, JobContext& job,
                                     const DistributedSetup& distributed = {},
                                     const TrainingControl& control = {},
                                     const std::vector<std::string>& overrides = {});

/** `recipe` as a catalog entry whose runner is startPluginTraining / resumePluginTraining. */
CatalogRecipe pluginCatalogRecipe(const plugin::RecipeEntry& recipe);

}  // namespace strata::engine
