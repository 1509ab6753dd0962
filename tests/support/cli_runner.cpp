#include "support/cli_runner.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "support/temp_dir.h"

namespace strata::testing {
namespace {

CommandOutput runShell(const std::string& command) {
  CommandOutput result;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return result;
  std::array<char, 4096> buffer;
  while (std::size_t n = fread(buffer.data(), 1, buffer.size(), pipe))
    result.out.append(buffer.data(), n);
  const int status = pclose(pipe);
  result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

}  // namespace

CommandOutput runCli(const std::string& arguments) {
  return runShell(std::string(STRATA_CLI_PATH) + " " + arguments + " 2>&1");
}

CommandOutput runCliSplit(const std::string& arguments) {
  TempDir dir;
  CommandOutput result =
      runShell(std::string(STRATA_CLI_PATH) + " " + arguments + " 2>" + (dir / "stderr").string());
  std::ostringstream err;
  err << std::ifstream(dir / "stderr").rdbuf();
  result.err = err.str();
  return result;
}

namespace {

/** Starts strata-cli with `arguments`, its stdout to `output` and its stderr to the same file
 *  (or to /dev/null with `output` empty); the pid, or -1. */
pid_t spawnInto(const std::vector<std::string>& arguments, const std::string& output) {
  std::vector<std::string> argv = {STRATA_CLI_PATH};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  std::vector<char*> raw;
  for (auto& a : argv) raw.push_back(a.data());
  raw.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (output.empty()) {
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  } else {
    posix_spawn_file_actions_addopen(&actions, 1, output.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0600);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
  }
  pid_t pid = -1;
  if (posix_spawn(&pid, STRATA_CLI_PATH, &actions, nullptr, raw.data(), environ) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

}  // namespace

MeasuredOutput runCliMeasured(const std::vector<std::string>& arguments) {
  TempDir dir;
  const std::string output = (dir / "output").string();
  MeasuredOutput result;
  const pid_t pid = spawnInto(arguments, output);
  int status = 0;
  rusage usage{};
  if (pid < 0 || wait4(pid, &status, 0, &usage) != pid) return result;
  result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.peakResidentBytes = int64_t(usage.ru_maxrss) * 1024;  // kilobytes on Linux
  std::ostringstream text;
  text << std::ifstream(output).rdbuf();
  result.out = text.str();
  return result;
}

pid_t spawnCli(const std::vector<std::string>& arguments) { return spawnInto(arguments, {}); }

}  // namespace strata::testing
