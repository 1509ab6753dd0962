#pragma once
// strata-cli's subcommands. Each takes its arguments (after the command name), prints to
// stdout, reports problems by throwing (UsageError or a strata::Error), and returns the exit code.

#include <string>
#include <vector>

namespace strata::cli {

using Arguments = std::vector<std::string>;

struct Command {
  const char* name;
  const char* summary;
  int (*run)(const Arguments& args);
};

int runInspect(const Arguments& args);
int runAbout(const Arguments& args);
int runCapture(const Arguments& args);
int runImportLlama2c(const Arguments& args);
int runImportGguf(const Arguments& args);
int runGenerate(const Arguments& args);
int runPretrain(const Arguments& args);
int runScore(const Arguments& args);
int runTrain(const Arguments& args);
int runResume(const Arguments& args);
int runRuns(const Arguments& args);
int runSweepBridges(const Arguments& args);
int runCompareDlm(const Arguments& args);
int runMask(const Arguments& args);
int runCompareAlign(const Arguments& args);
int runStudy(const Arguments& args);
int runPlugins(const Arguments& args);
int runVerify(const Arguments& args);

/** Every subcommand, in the order `strata-cli --help` lists them. */
const std::vector<Command>& commands();

}  // namespace strata::cli
