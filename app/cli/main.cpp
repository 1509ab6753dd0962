// strata-cli: the headless face of Strata. Errors are caught here, at the edge: a readable
// line on stderr and a non-zero exit (1 for failures, 2 for wrong usage).

#include <algorithm>
#include <iostream>

#include "command_line.h"
#include "commands.h"
#include "common/build_info.h"
#include "common/runtime_tuning.h"
#include "engine/device_info.h"
#include "recipes/built_in_recipes.h"

namespace {

void printOverview() {
  std::cout
      << "usage: strata-cli <command> [options]\n\n"
         "Strata: layer geometry of transformer hidden states, and the diffusion models\n"
         "it guides. Run `strata-cli <command> --help` for a command's options.\n\ncommands:\n";
  for (const auto& command : strata::cli::commands())
    std::cout << "  " << command.name
              << std::string(std::max<std::size_t>(2, 16 - std::string(command.name).size()), ' ')
              << command.summary << "\n";
  std::cout << "\n  --version       print the version and exit\n";
}

}  // namespace

STRATA_TUNE_LIBRARIES_AT_LOAD

int main(int argc, char** argv) {
  strata::runWithTunedLibraries(argv);
  const std::vector<std::string> all(argv + 1, argv + argc);
  if (all.empty() || all[0] == "--help" || all[0] == "-h" || all[0] == "help") {
    printOverview();
    return all.empty() ? 2 : 0;
  }
  if (all[0] == "--version") {
    std::cout << "strata-cli " << strata::build::kVersion << "\n";
    return 0;
  }
  strata::engine::setComputeThreads(strata::engine::defaultThreadCount());
  strata::recipes::addBuiltInRecipes();
  strata::engine::reuseFreedTensorMemory();  // capture and every other forward pass run faster
  const std::vector<std::string> args(all.begin() + 1, all.end());
  for (const auto& command : strata::cli::commands()) {
    if (all[0] != command.name) continue;
    try {
      return command.run(args);
    } catch (const strata::cli::UsageError& error) {
      std::cerr << "strata-cli " << command.name << ": " << error.what() << "\n"
                << "run `strata-cli " << command.name << " --help` for usage\n";
      return 2;
    } catch (const std::exception& error) {
      std::cerr << "strata-cli " << command.name << ": error: " << error.what() << "\n";
      return 1;
    }
  }
  std::cerr << "strata-cli: unknown command '" << all[0] << "'; run `strata-cli --help`\n";
  return 2;
}
