#include "core/cli_runner.h"

#include <sys/wait.h>

#include <array>
#include <cstdio>

namespace strata::testing {

CommandOutput runCli(const std::string& arguments) {
  const std::string command = std::string(STRATA_CLI_PATH) + " " + arguments + " 2>&1";
  CommandOutput result;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return result;
  std::array<char, 4096> buffer;
  while (std::size_t n = fread(buffer.data(), 1, buffer.size(), pipe)) result.out.append(buffer.data(), n);
  const int status = pclose(pipe);
  result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

}  // namespace strata::testing
