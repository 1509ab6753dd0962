#include "verify/python_environment.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "verify/child_process.h"

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

// Prints the modules it cannot find, space-separated; exit status 1 when any is missing.
constexpr const char* kProbe =
    "import importlib.util as u, sys\n"
    "missing = [m for m in ('transformers', 'torch', 'safetensors') if u.find_spec(m) is None]\n"
    "print(' '.join(missing))\n"
    "sys.exit(1 if missing else 0)\n";

constexpr const char* kRemedy = ": run scripts/setup.sh or pass --python";

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

void requireTransformers(const std::string& python, const JobContext* job) {
  std::string missing;
  ChildProcessResult result;
  try {
    result = runChildProcess({python, "-c", kProbe},
                             {.timeout = std::chrono::seconds(60),
                              .onStdoutLine = [&](const std::string& line) { missing += line; },
                              .job = job});
  } catch (const IoError& error) {
    throw TransformersUnavailableError(python, "transformers is not installed for " + python +
                                                   " (" + error.what() + ")" + kRemedy);
  }
  if (result.exitCode == 0) return;
  // A Python that fails before printing anything (or a program that is not Python at all) is
  // reported like one without transformers: either way this Python cannot verify.
  if (missing.empty() || missing.find("transformers") != std::string::npos)
    throw TransformersUnavailableError(python,
                                       "transformers is not installed for " + python + kRemedy);
  throw TransformersUnavailableError(
      python, missing + " not installed for " + python +
                  " (verify needs torch, transformers and safetensors)" + kRemedy);
}

}  // namespace strata
