#pragma once
// Runs the real strata-cli binary (STRATA_CLI_PATH) as a user would, for CLI tests.

#include <string>

namespace strata::testing {

struct CommandOutput {
  int exitCode = -1;
  std::string out;  ///< stdout and stderr together
};

/** Runs `strata-cli <arguments>` through the shell and collects its output. */
CommandOutput runCli(const std::string& arguments);

}  // namespace strata::testing
