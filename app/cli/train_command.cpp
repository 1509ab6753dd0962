// `strata-cli train RECIPE` and `strata-cli resume DIR`: any recipe on the training engine,
// headless. Ctrl-C stops after a checkpoint; resume continues exactly where it stopped.

#include <ctime>
#include <iostream>

#include "common/memory_budget.h"
#include "engine/recipe_catalog.h"
#include "engine/run_folder.h"
#include "terminal_progress.h"
#include "training_arguments.h"

namespace strata::cli {
namespace {

std::string settingsHelp(const engine::ConfigSchema& schema) {
  std::string text = "\nSettings of the " + schema.recipe + " recipe (--set KEY=VALUE):\n";
  for (const engine::SettingSpec& spec : schema.settings) {
    text += "  " + spec.key + " = " + engine::settingText(spec.defaultValue);
    if (!spec.choices.empty()) {
      std::string choices;
      for (const auto& c : spec.choices) choices += (choices.empty() ? "" : "|") + c;
      text += " (" + choices + ")";
    }
    text += "\n      " + spec.description + (spec.required ? " [required]" : "") + "\n";
  }
  return text;
}

/** `train --plan`: the plan on stdout; a run that would not fit fails with its refusal. */
int printPlan(const engine::TrainingRequest& request) {
  engine::TrainingPlanPreview preview;
  const JobOutcome outcome = runWithTerminalProgress(
      [&](JobContext& job) { preview = engine::planTraining(request, job); });
  if (outcome == JobOutcome::Cancelled) return 130;
  std::cout << preview.plan << "\n";
  if (!preview.fits) throw MemoryError(preview.refusal);
  return 0;
}

}  // namespace

int runTrain(const Arguments& original) {
  Arguments args = original;
  const std::vector<std::string> sets = takeSetOptions(args);
  CommandLine cli(
      "train",
      "Train RECIPE into a new run folder: run.json, metrics.jsonl, TensorBoard events,\n"
      "checkpoints/. Settings come from the recipe's defaults, then --config, then each\n"
      "--set KEY=VALUE (repeatable). `strata-cli train RECIPE --help` lists them.");
  cli.positional("recipe", "the recipe to train (pretrain)")
      .option("config", "FILE", "JSON object of settings")
      .option("set", "KEY=VALUE", "one setting (repeatable); overrides --config")
      .option("run-dir", "DIR", "the run folder to create (default: runs/<recipe>-<time>)")
      .flag("plan",
            "print the run's memory plan against this machine now and stop: nothing is\n"
            "created, no corpus read, no model built (exit 1 when it would not fit); with\n"
            "--nproc N, the plan of each of the N processes sharing this machine");
  addDistributedOptions(cli);
  const bool run = cli.parse(args);
  if (!run) {
    std::cout << cli.help();
    for (const std::string& name : engine::recipeNames())
      std::cout << settingsHelp(engine::recipeSchema(name));
    return 0;
  }
  const engine::ConfigSchema schema = engine::recipeSchema(cli.value("recipe"));
  const bool planOnly = cli.isSet("plan");
  if (planOnly && (cli.has("world-size") || cli.has("rank")))
    throw UsageError("--plan plans the processes of this machine: give them with --nproc");
  if (!planOnly)
    if (const int code = launchLocalProcesses(cli, "train", original); code >= 0) return code;

  engine::TrainingRequest request;
  request.recipe = schema.recipe;
  request.config = engine::ResolvedConfig(schema);
  if (cli.has("config")) engine::applyConfigFile(schema, cli.value("config"), request.config);
  for (const std::string& assignment : sets)
    engine::applyOverride(schema, assignment, request.config);
  request.runFolder =
      cli.has("run-dir")
          ? std::filesystem::path(cli.value("run-dir"))
          : engine::defaultRunsRoot() / (schema.recipe + "-" + std::to_string(::time(nullptr)));
  request.command = commandLineText("train", original);
  request.distributed = distributedSetupFrom(cli);
  if (planOnly) {
    // Rank 0 of the --nproc processes, planned as it would plan itself (nothing is started).
    if (cli.has("nproc")) request.distributed.worldSize = localProcessCount(cli);
    return printPlan(request);
  }
  return runTrainingJob([&](JobContext& job) { return engine::startTraining(request, job); },
                        request.distributed, request.runFolder);
}

int runResume(const Arguments& original) {
  Arguments args = original;
  const std::vector<std::string> sets = takeSetOptions(args);
  CommandLine cli(
      "resume",
      "Continue the run in DIR from its newest valid checkpoint, with its own recipe\n"
      "and settings. On the CPU the continued run equals an uninterrupted one step for\n"
      "step. --set may change steps, log_every, eval_every, checkpoint_every,\n"
      "keep_last, stop_after, device and threads.");
  cli.positional("dir", "the run folder")
      .option("set", "KEY=VALUE",
              "change a setting that does not alter the trajectory (repeatable)");
  addDistributedOptions(cli);
  if (!cli.parse(args)) {
    std::cout << cli.help();
    return 0;
  }
  if (const int code = launchLocalProcesses(cli, "resume", original); code >= 0) return code;
  const std::filesystem::path folder = cli.value("dir");
  const engine::DistributedSetup setup = distributedSetupFrom(cli);
  return runTrainingJob(
      [&](JobContext& job) {
        return engine::resumeTraining(folder, job, setup, engine::TrainingControl{}, sets);
      },
      setup, folder);
}

}  // namespace strata::cli
