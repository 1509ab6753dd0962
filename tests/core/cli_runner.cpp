#include "core/cli_runner.h"

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "core/temp_dir.h"

namespace strata::testing {
namespace {

CommandOutput runShell(const std::string& command) {
  CommandOutput result;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return result;
  std::array<char, 4096> buffer;
  while (std::size_t n = fread(buffer.data(), 1, buffer.size(), pipe)) result.out.append(buffer.data(), n);
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

}  // namespace strata::testing
