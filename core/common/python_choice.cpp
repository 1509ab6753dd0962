#include "common/python_choice.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace strata {
namespace {

bool isFile(const std::filesystem::path& path) {
  std::error_code error;
  return !path.empty() && std::filesystem::is_regular_file(path, error);
}

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

std::filesystem::path defaultEnvironmentPython() {
  if (const std::string venv = environment("STRATA_VENV"); !venv.empty())
    return std::filesystem::path(venv) / "bin" / "python";
  const std::string home = environment("HOME");
  if (home.empty()) return {};
  return std::filesystem::path(home) / ".local" / "share" / "strata" / "venv" / "bin" / "python";
}

}  // namespace

std::string choosePython(const std::string& explicitPython) {
  if (!explicitPython.empty()) return explicitPython;
  if (std::string chosen = environment("STRATA_PYTHON"); !chosen.empty()) return chosen;
#ifdef STRATA_CONFIGURED_PYTHON
  // The environment the build was configured with (CMake's STRATA_PYTHON).
  if (isFile(STRATA_CONFIGURED_PYTHON)) return STRATA_CONFIGURED_PYTHON;
#endif
  if (const auto venv = defaultEnvironmentPython(); isFile(venv)) return venv.string();
  return "python3";
}

}  // namespace strata
