// The training loop's runner (see loop_recipe.h): new runs and resumed ones, up to the loop.

#include "engine/loop_recipe.h"

#include "common/error.h"
#include "common/job.h"
#include "engine/engine_settings.h"
#include "engine/run_folder.h"
#include "engine/run_manifest.h"
#include "engine/training_loop.h"
#include "io/gguf/gguf_import.h"

namespace strata::engine {

namespace fs = std::filesystem;
namespace {

/** A recipe's `model` given as a .gguf file becomes its imported model folder
 *  (io/gguf/gguf_import.h) before anything reads it, so run.json, the store checks and every
 *  loader see a folder. */
void resolveGgufModel(const ConfigSchema& schema, ResolvedConfig& config, JobContext& job) {
  const SettingSpec* model = schema.find("model");
  if (!model || model->type != SettingType::Path || !config.has("model")) return;
  const fs::path given = config.text("model");
  if (!io::isGgufModelFile(given)) return;
  const fs::path folder = io::resolveModelFolder(given, &job);
  job.info("model " + given.string() + " (GGUF) is read from its imported folder " +
           folder.string());
  config.set("model", folder.string());
}

class LoopRunner final : public RecipeRunner {
 public:
  LoopRunner(std::string name, std::string description, std::vector<SettingSpec> (*settings)(),
             RecipeFactory make)
      : m_name(std::move(name)),
        m_description(std::move(description)),
        m_settings(settings),
        m_make(make) {}

  ConfigSchema schema() const override {
    ConfigSchema schema{m_name, m_description, engineSettings()};
    for (auto& spec : m_settings()) schema.settings.push_back(std::move(spec));
    return schema;
  }

  TrainingSummary start(const TrainingRequest& request, JobContext& job) const override {
    TrainingLoopInputs in = inputs(request.distributed, request.control);
    validateConfig(in.schema, request.config, "the " + m_name + " run configuration");
    if (request.distributed.rank == 0 && isRunFolder(request.runFolder))
      throw IoError(request.runFolder, "already holds a run (resume it with `strata-cli resume " +
                                           request.runFolder.string() +
                                           "`, or choose a new folder)");
    createRunFolder(request.runFolder);
    in.config = request.config;
    resolveGgufModel(in.schema, in.config, job);
    in.folder = request.runFolder;
    in.command = request.command;
    in.planOnly = request.planOnly;
    return runTrainingLoop(in, job);
  }

  TrainingSummary resume(const RunManifest& run, const ResumeRequest& request,
                         JobContext& job) const override {
    TrainingLoopInputs in = inputs(request.distributed, request.control);
    in.config = ResolvedConfig(in.schema);
    applyConfigJson(in.schema, run.config(), run.file, in.config);
    for (const std::string& assignment : request.overrides) {
      const std::string key = assignment.substr(0, assignment.find('='));
      if (!settingMayChangeOnResume(key))
        throw ConfigError("--set " + assignment, key,
                          "cannot change on resume: it would change what the run computes");
      applyOverride(in.schema, assignment, in.config);
    }
    validateConfig(in.schema, in.config, run.file);
    if (!request.overrides.empty() && request.distributed.rank == 0) {
      RunManifest changed = run;  // a later resume keeps the new values
      changed.configJson = configToJson(in.schema, in.config);
      writeRunManifest(request.runFolder, changed);
    }
    in.folder = request.runFolder;
    in.resume = true;
    in.command = run.command;
    return runTrainingLoop(in, job);
  }

  RecipeFactory trainingLoopFactory() const override { return m_make; }

 private:
  TrainingLoopInputs inputs(const DistributedSetup& distributed,
                            const TrainingControl& control) const {
    TrainingLoopInputs in;
    in.schema = schema();
    in.recipe = m_name;
    in.make = m_make;
    in.distributed = distributed;
    in.control = control;
    return in;
  }

  std::string m_name;
  std::string m_description;
  std::vector<SettingSpec> (*m_settings)();
  RecipeFactory m_make;
};

}  // namespace

CatalogRecipe loopRecipe(std::string name, std::string description,
                         std::vector<SettingSpec> (*settings)(), RecipeFactory make) {
  auto runner = std::make_shared<LoopRunner>(name, description, settings, make);
  return {std::move(name), std::move(description), std::move(runner)};
}

}  // namespace strata::engine
