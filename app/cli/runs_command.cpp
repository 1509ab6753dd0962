// `strata-cli runs`: the run folders under a root with their recipe, state and progress.

#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "command_line.h"
#include "commands.h"
#include "engine/run_folder.h"

namespace strata::cli {

int runRuns(const Arguments& args) {
  CommandLine cli(
      "runs",
      "List the training runs in ROOT (default $STRATA_RUNS_DIR, else ./runs): recipe,\n"
      "state (running, paused, stopped, interrupted = killed, finished, failed), step,\n"
      "newest checkpoint. Stopped and interrupted runs continue with `strata-cli resume`.");
  cli.option("root", "DIR", "folder holding run folders (or a run folder itself)")
      .flag("json", "print a JSON array instead of a table");
  if (!cli.parse(args)) {
    std::cout << cli.help();
    return 0;
  }
  const std::filesystem::path root =
      cli.has("root") ? std::filesystem::path(cli.value("root")) : engine::defaultRunsRoot();
  const std::vector<engine::RunInfo> runs = engine::listRuns(root);
  if (cli.isSet("json")) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const engine::RunInfo& run : runs)
      list.push_back({{"folder", run.folder.string()},
                      {"recipe", run.recipe},
                      {"created", run.created},
                      {"state", engine::runStateName(run.status.state)},
                      {"step", run.status.step},
                      {"total_steps", run.status.totalSteps},
                      {"last_checkpoint", run.lastCheckpoint},
                      {"error", run.status.error}});
    std::cout << list.dump(2) << "\n";
    return 0;
  }
  if (runs.empty()) {
    std::cout << "No runs in " << root.string() << "\n";
    return 0;
  }
  std::cout << std::left << std::setw(12) << "state" << std::setw(10) << "recipe" << std::setw(16)
            << "step" << std::setw(12) << "checkpoint" << std::setw(22) << "created"
            << "folder\n";
  for (const engine::RunInfo& run : runs) {
    const std::string step =
        std::to_string(run.status.step) + "/" + std::to_string(run.status.totalSteps);
    std::cout << std::setw(12) << engine::runStateName(run.status.state) << std::setw(10)
              << run.recipe << std::setw(16) << step << std::setw(12)
              << (run.lastCheckpoint >= 0 ? std::to_string(run.lastCheckpoint) : "-")
              << std::setw(22) << run.created << run.folder.string() << "\n";
    if (!run.status.error.empty()) std::cout << "    error: " << run.status.error << "\n";
  }
  return 0;
}

}  // namespace strata::cli
