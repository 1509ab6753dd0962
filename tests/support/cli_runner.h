#pragma once
// Runs the real strata-cli binary (STRATA_CLI_PATH) as a user would, for CLI tests.

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace strata::testing {

struct CommandOutput {
  int exitCode = -1;
  std::string out;  ///< runCli: stdout and stderr together; runCliSplit: stdout only
  std::string err;  ///< runCliSplit: stderr; empty for runCli
};

/** Runs `strata-cli <arguments>` through the shell; stdout and stderr in one stream. */
CommandOutput runCli(const std::string& arguments);

/** The same, keeping stdout (e.g. generated text) apart from stderr (progress, speed). */
CommandOutput runCliSplit(const std::string& arguments);

/** What runMeasured gives: the output (stdout and stderr together) and the peak resident set. */
struct MeasuredOutput : CommandOutput {
  int64_t peakResidentBytes = -1;  ///< the process's own ru_maxrss (wait4), not its siblings'
};

/** Runs `strata-cli <arguments>` without a shell and measures its peak resident set. */
MeasuredOutput runCliMeasured(const std::vector<std::string>& arguments);

/** Starts `strata-cli <arguments>` without a shell, output discarded; its pid, or -1. */
pid_t spawnCli(const std::vector<std::string>& arguments);

}  // namespace strata::testing
