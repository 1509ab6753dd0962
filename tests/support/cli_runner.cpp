#include "support/cli_runner.h"

#include <fcntl.h>
#include <spawn.h>
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

pid_t spawnCli(const std::vector<std::string>& arguments) {
  std::vector<std::string> argv = {STRATA_CLI_PATH};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  std::vector<char*> raw;
  for (auto& a : argv) raw.push_back(a.data());
  raw.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  if (posix_spawn(&pid, STRATA_CLI_PATH, &actions, nullptr, raw.data(), environ) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

}  // namespace strata::testing
