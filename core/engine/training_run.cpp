// Starting and resuming runs (see training_run.h): configuration checks, run.json, then the
// loop in training_loop.cpp.

#include "engine/training_run.h"

#include <unistd.h>

#include <chrono>
#include <ctime>
#include <thread>

#include "common/build_info.h"
#include "common/error.h"
#include "common/text_file.h"
#include "engine/engine_settings.h"
#include "engine/plugin_training.h"
#include "engine/recipe_catalog.h"
#include "engine/run_folder.h"
#include "engine/run_manifest.h"
#include "engine/training_loop.h"
#include "engine/versions.h"
#include "io/atomic_file.h"
#include "io/gguf_import.h"

namespace strata {
namespace fs = std::filesystem;

std::string utcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::string hostName() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

void writeRunJson(const TrainingLoopInputs& in, const std::map<std::string, std::string>& facts,
                  const std::string& device) {
  RunManifest run;
  run.recipe = in.recipe;
  run.created = utcNow();
  run.command = in.command;
  run.codeVersion = build::kVersion;
  run.seed = in.config.integer("seed");
  run.machine = {hostName(), int64_t(std::thread::hardware_concurrency()), device,
                 in.distributed.worldSize, libraryVersions().libtorch};
  run.configJson = configToJson(in.schema, in.config);
  run.description = facts;
  writeRunManifest(in.folder, run);
}

/** A recipe's `model` given as a .gguf file becomes its imported model folder (io/gguf_import.h)
 *  before anything reads it, so run.json, the store checks and every loader see a folder. */
void resolveGgufModel(const ConfigSchema& schema, ResolvedConfig& config, JobContext& job) {
  const SettingSpec* model = schema.find("model");
  if (!model || model->type != SettingType::Path || !config.has("model")) return;
  const fs::path given = config.text("model");
  if (!isGgufModelFile(given)) return;
  const fs::path folder = resolveModelFolder(given, &job);
  job.info("model " + given.string() + " (GGUF) is read from its imported folder " +
           folder.string());
  config.set("model", folder.string());
}

TrainingSummary startTraining(const TrainingRequest& request, JobContext& job) {
  if (const plugin::RecipeEntry* recipe = findPluginRecipe(request.recipe))
    return startPluginTraining(*recipe, request, job);
  TrainingLoopInputs in;
  in.schema = recipeSchema(request.recipe);
  validateConfig(in.schema, request.config, "the " + request.recipe + " run configuration");
  const bool leader = request.distributed.rank == 0;
  if (leader && isRunFolder(request.runFolder))
    throw IoError(request.runFolder, "already holds a run (resume it with `strata-cli resume " +
                                         request.runFolder.string() + "`, or choose a new folder)");
  createRunFolder(request.runFolder);
  in.recipe = request.recipe;
  in.config = request.config;
  resolveGgufModel(in.schema, in.config, job);
  in.folder = request.runFolder;
  in.command = request.command;
  in.distributed = request.distributed;
  in.control = request.control;
  return runTrainingLoop(in, job);
}

TrainingSummary resumeTraining(const fs::path& runFolder, JobContext& job,
                               const DistributedSetup& distributed, const TrainingControl& control,
                               const std::vector<std::string>& overrides) {
  RunManifest run = readRunManifest(runFolder);
  const fs::path& runJson = run.file;
  if (run.plugin)
    return resumePluginTraining(nullptr, runFolder, job, distributed, control, overrides);
  TrainingLoopInputs in;
  in.recipe = run.recipe;
  in.schema = recipeSchema(in.recipe);
  in.config = ResolvedConfig(in.schema);
  applyConfigJson(in.schema, run.config(), runJson, in.config);
  for (const std::string& assignment : overrides) {
    const std::string key = assignment.substr(0, assignment.find('='));
    if (!settingMayChangeOnResume(key))
      throw ConfigError("--set " + assignment, key,
                        "cannot change on resume: it would change what the run computes");
    applyOverride(in.schema, assignment, in.config);
  }
  validateConfig(in.schema, in.config, runJson);
  if (!overrides.empty() && distributed.rank == 0) {  // a later resume keeps the new values
    run.configJson = configToJson(in.schema, in.config);
    writeRunManifest(runFolder, run);
  }
  in.folder = runFolder;
  in.resume = true;
  in.command = run.command;
  in.distributed = distributed;
  in.control = control;
  return runTrainingLoop(in, job);
}

}  // namespace strata
