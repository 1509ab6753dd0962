// Starting and resuming runs (see training_run.h): each run to its recipe's runner; and the
// run.json the training loop writes.

#include "engine/training_run.h"

#include <unistd.h>

#include <chrono>
#include <ctime>
#include <thread>

#include "common/build_info.h"
#include "engine/recipe_catalog.h"
#include "engine/run_manifest.h"
#include "engine/training_loop.h"
#include "engine/versions.h"

namespace strata::engine {

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

TrainingSummary startTraining(const TrainingRequest& request, JobContext& job) {
  return findRecipe(request.recipe).runner->start(request, job);
}

TrainingSummary resumeTraining(const fs::path& runFolder, JobContext& job,
                               const DistributedSetup& distributed, const TrainingControl& control,
                               const std::vector<std::string>& overrides) {
  const RunManifest run = readRunManifest(runFolder);
  return recipeOfRun(run).runner->resume(run, {runFolder, distributed, control, overrides}, job);
}

}  // namespace strata::engine
