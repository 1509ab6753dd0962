// Starting and resuming runs (see training_run.h): configuration checks, run.json, then the
// loop in training_loop.cpp.

#include "engine/training_run.h"

#include <unistd.h>

#include <chrono>
#include <ctime>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/build_info.h"
#include "common/error.h"
#include "engine/engine_settings.h"
#include "engine/plugin_training.h"
#include "engine/run_folder.h"
#include "engine/training_loop.h"
#include "engine/versions.h"
#include "io/text_file.h"
#include "recipes/pretrain_files.h"
#include "recipes/registry.h"

namespace strata {
namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

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
  Json description = Json::object();
  for (const auto& [key, value] : facts) description[key] = value;
  const LibraryVersions versions = libraryVersions();
  const Json run = {
      {"recipe", in.recipe},
      {"created", utcNow()},
      {"command", in.command},
      {"code_version", build::kVersion},
      {"seed", in.config.integer("seed")},
      {"machine", {{"host", hostName()},
                   {"cpus", std::thread::hardware_concurrency()},
                   {"device", device},
                   {"processes", in.distributed.worldSize},
                   {"libtorch", versions.libtorch}}},
      {"config", Json::parse(configToJson(in.schema, in.config))},
      {"description", description}};
  writeTextAtomically(in.folder / "run.json", run.dump(2) + "\n");
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
  in.folder = request.runFolder;
  in.command = request.command;
  in.distributed = request.distributed;
  in.control = request.control;
  return runTrainingLoop(in, job);
}

TrainingSummary resumeTraining(const fs::path& runFolder, JobContext& job,
                               const DistributedSetup& distributed, const TrainingControl& control,
                               const std::vector<std::string>& overrides) {
  const fs::path runJson = runFolder / "run.json";
  if (!fs::is_regular_file(runJson))
    throw IoError(runFolder, "is not a run folder (it has no run.json)");
  Json run;
  try {
    run = Json::parse(readWholeFile(runJson));
  } catch (const nlohmann::json::exception& e) {
    throw FormatError(runJson, std::string("is not valid JSON: ") + e.what());
  }
  if (run.contains("plugin"))
    return resumePluginTraining(nullptr, runFolder, job, distributed, control, overrides);
  TrainingLoopInputs in;
  in.recipe = run.value("recipe", std::string());
  in.schema = recipeSchema(in.recipe);
  in.config = ResolvedConfig(in.schema);
  if (!run.contains("config")) throw FormatError(runJson, "has no \"config\"");
  applyConfigJson(in.schema, run["config"].dump(), runJson, in.config);
  for (const std::string& assignment : overrides) {
    const std::string key = assignment.substr(0, assignment.find('='));
    if (!settingMayChangeOnResume(key))
      throw ConfigError("--set " + assignment, key,
                        "cannot change on resume: it would change what the run computes");
    applyOverride(in.schema, assignment, in.config);
  }
  validateConfig(in.schema, in.config, runJson);
  if (!overrides.empty() && distributed.rank == 0) {  // a later resume keeps the new values
    run["config"] = Json::parse(configToJson(in.schema, in.config));
    writeTextAtomically(runJson, run.dump(2) + "\n");
  }
  in.folder = runFolder;
  in.resume = true;
  in.command = run.value("command", std::string());
  in.distributed = distributed;
  in.control = control;
  return runTrainingLoop(in, job);
}

}  // namespace strata
