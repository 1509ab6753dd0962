// Where plugins are looked for (plugin_loader.h, pluginFolders). STRATA_PLUGIN_INSTALL_DIR and
// STRATA_PLUGIN_BUILD_DIR come from core/CMakeLists.txt.

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <system_error>

#include "common/install_paths.h"
#include "plugin/plugin_loader.h"

#ifndef STRATA_PLUGIN_INSTALL_DIR
#define STRATA_PLUGIN_INSTALL_DIR "/usr/local/lib/strata/plugins"
#endif

namespace strata::plugin {

std::vector<std::filesystem::path> pluginFolders() {
  std::vector<std::filesystem::path> folders;
  if (const char* path = std::getenv("STRATA_PLUGIN_PATH")) {
    std::stringstream in(path);
    std::string folder;
    while (std::getline(in, folder, ':'))
      if (!folder.empty()) folders.emplace_back(folder);
  }
  if (auto beside = installedPluginFolder(); !beside.empty()) folders.push_back(beside);
#ifdef STRATA_PLUGIN_BUILD_DIR
  folders.emplace_back(STRATA_PLUGIN_BUILD_DIR);
#endif
  folders.emplace_back(STRATA_PLUGIN_INSTALL_DIR);

  std::vector<std::filesystem::path> unique;
  for (const auto& f : folders) {
    std::error_code error;
    const auto normal = std::filesystem::weakly_canonical(f, error);
    const auto key = error ? f.lexically_normal() : normal;
    if (std::find(unique.begin(), unique.end(), key) == unique.end()) unique.push_back(key);
  }
  return unique;
}

}  // namespace strata::plugin
