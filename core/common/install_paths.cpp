#include "common/install_paths.h"

#include <algorithm>
#include <cstdlib>
#include <system_error>
#include <vector>

namespace strata {
namespace {

bool hasModelConfig(const std::filesystem::path& folder) {
  std::error_code error;
  return !folder.empty() && std::filesystem::is_regular_file(folder / "config.json", error);
}

}  // namespace

std::filesystem::path executableFile() {
  std::error_code error;
  std::filesystem::path file = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::filesystem::path() : file;
}

std::filesystem::path installPrefix() {
  const std::filesystem::path exe = executableFile();
  return exe.empty() ? exe : exe.parent_path().parent_path();
}

std::filesystem::path installedDataFolder() {
  const std::filesystem::path prefix = installPrefix();
  return prefix.empty() ? prefix : prefix / "share" / "strata";
}

std::filesystem::path installedPluginFolder() {
  const std::filesystem::path prefix = installPrefix();
  return prefix.empty() ? prefix : prefix / "lib" / "strata" / "plugins";
}

std::filesystem::path smallModelFolder() {
  const std::filesystem::path data = installedDataFolder();
  if (!data.empty() && hasModelConfig(data / "models" / "default"))
    return data / "models" / "default";
#ifdef STRATA_SOURCE_DIR
  // A build tree: the binary is not installed, the checkout it was built from has the model.
  const std::filesystem::path source =
      std::filesystem::path(STRATA_SOURCE_DIR) / "resources" / "models" / "default";
  if (hasModelConfig(source)) return source;
#endif
  return {};
}

std::filesystem::path bundledPythonScript(const std::string& name) {
  std::error_code error;
  const std::filesystem::path data = installedDataFolder();
  if (!data.empty() && std::filesystem::is_regular_file(data / "python" / name, error))
    return data / "python" / name;
#ifdef STRATA_SOURCE_DIR
  const std::filesystem::path source =
      std::filesystem::path(STRATA_SOURCE_DIR) / "resources" / "python" / name;
  if (std::filesystem::is_regular_file(source, error)) return source;
#endif
  return {};
}

std::filesystem::path defaultCorpusFile() {
  if (const char* chosen = std::getenv("STRATA_DEFAULT_CORPUS"); chosen && *chosen) return chosen;
  std::error_code error;
  const std::filesystem::path debian12 = "/usr/lib/python3.11/argparse.py";
  if (std::filesystem::is_regular_file(debian12, error)) return debian12;
  std::vector<std::filesystem::path> found;
  for (const auto& entry : std::filesystem::directory_iterator("/usr/lib", error)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("python3.", 0) == 0 &&
        std::filesystem::is_regular_file(entry.path() / "argparse.py", error))
      found.push_back(entry.path() / "argparse.py");
  }
  std::sort(found.begin(), found.end());  // the same choice on every run
  return found.empty() ? std::filesystem::path() : found.front();
}

std::filesystem::path sharedDataFolder() {
  if (const char* chosen = std::getenv("STRATA_SHARED_DATA_DIR"); chosen && *chosen) return chosen;
#ifdef STRATA_SOURCE_DIR
  std::error_code error;
  const std::filesystem::path beside =
      std::filesystem::path(STRATA_SOURCE_DIR).parent_path() / "shared" / "data";
  if (std::filesystem::is_directory(beside, error)) return beside;
#endif
  return {};
}

std::filesystem::path sourceTreeFolder() {
#ifdef STRATA_SOURCE_DIR
  std::error_code error;
  if (std::filesystem::is_directory(installedDataFolder(), error)) return {};  // installed
  const std::filesystem::path source(STRATA_SOURCE_DIR);
  if (std::filesystem::is_directory(source, error)) return source;
#endif
  return {};
}

std::filesystem::path userDataFolder() {
  if (const char* chosen = std::getenv("STRATA_DATA_DIR"); chosen && *chosen) return chosen;
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg)
    return std::filesystem::path(xdg) / "strata";
  const char* home = std::getenv("HOME");
  return std::filesystem::path(home && *home ? home : "/tmp") / ".local" / "share" / "strata";
}

}  // namespace strata
