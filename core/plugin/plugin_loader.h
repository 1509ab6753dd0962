#pragma once
// Finding and loading plugins: shared objects that implement the C ABI of strata_plugin.h.
// Each is loaded with dlopen, its entry point called once and its description copied and checked
// (ABI version, names, function pointers). A plugin that cannot be loaded, has another ABI
// version, throws or hands back an invalid description is recorded as a PluginFailure — file,
// name and reason — and skipped; loading never throws because of a plugin.
//
// Loaded plugins are never unloaded (their strings and functions must outlive every report that
// names them). installedPlugins() is loaded once per process, on first use, thread-safely.

#include <filesystem>
#include <string>
#include <vector>

#include "geometry/layer_metric.h"
#include "plugin/strata_plugin.h"

namespace strata::plugin {

/** An option of a metric or a setting of a recipe, as the plugin declares it. */
struct OptionInfo {
  std::string name;
  std::string defaultValue;
  std::string description;
};

struct MetricEntry {
  geometry::MetricInfo info;  // info.source is the plugin's file
  std::vector<OptionInfo> options;
  StrataMetricCompute compute = nullptr;
};

struct RecipeEntry {
  std::string name;
  std::string description;
  std::vector<OptionInfo> settings;
  std::filesystem::path file;
  std::string pluginName;  // the plugin that provides it, and its version (run.json, errors)
  std::string pluginVersion;
  /** StrataRecipe::run; never null (a recipe without one is refused at loading). */
  int (*run)(const char*, const char*, const StrataRecipeHost*, char*, size_t) = nullptr;
  /** Built against ABI 2 or later: it can plan its memory (StrataRecipeHost::plan_memory). */
  bool plansMemory = false;
};

struct LoadedPlugin {
  std::filesystem::path file;
  std::string name;
  std::string version;
  std::string description;
  std::vector<MetricEntry> metrics;
  std::vector<RecipeEntry> recipes;
};

struct PluginFailure {
  std::filesystem::path file;
  std::string name;    // the plugin's own name when it got that far, else the file's stem
  std::string reason;  // one readable line
};

struct PluginSet {
  std::vector<std::filesystem::path> folders;  // searched, in order (existing or not)
  std::vector<LoadedPlugin> plugins;
  std::vector<PluginFailure> failures;

  /** The metric called `name`, or nullptr. */
  const MetricEntry* findMetric(const std::string& name) const;
  /** The recipe called `name`, or nullptr. */
  const RecipeEntry* findRecipe(const std::string& name) const;
};

/**
 * The folders searched, in order: every folder of STRATA_PLUGIN_PATH (colon separated), the
 * installation's lib/strata/plugins next to the running executable (<exe>/../lib/strata/plugins),
 * the build tree's plugin folder (for binaries run from the build), and
 * CMAKE_INSTALL_PREFIX/lib/strata/plugins. Duplicates are removed.
 */
std::vector<std::filesystem::path> pluginFolders();

/**
 * Loads every `*.so` of `folders` (in folder order, files sorted by name in each folder). A
 * plugin whose name, or one of whose metric or recipe names, was already taken by an earlier
 * plugin is skipped as a failure, so the first folder wins.
 */
PluginSet loadPlugins(const std::vector<std::filesystem::path>& folders);

/** Loads one shared object; `failure` is filled and false returned when it is skipped. */
bool loadPlugin(const std::filesystem::path& file, LoadedPlugin& plugin, PluginFailure& failure);

/** loadPlugins(pluginFolders()), once per process. */
const PluginSet& installedPlugins();

}  // namespace strata::plugin
