#include "plugin/plugin_loader.h"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <system_error>

namespace strata::plugin {
namespace {

/** Thrown inside this file only: why a plugin's description is unusable. */
struct Rejected {
  std::string reason;
};

std::string text(const char* s) { return s ? std::string(s) : std::string(); }

/** Names become CSV columns, JSON keys and HDF5 attribute values: keep them plain. */
void checkName(const char* name, const std::string& what) {
  const std::string n = text(name);
  if (n.empty()) throw Rejected{what + " has no name"};
  for (char c : n)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'))
      throw Rejected{what + " '" + n + "' has a name with characters other than [A-Za-z0-9_.-]"};
}

std::vector<OptionInfo> copyOptions(const StrataOption* options, int32_t count,
                                    const std::string& owner) {
  if (count < 0 || (count > 0 && options == nullptr))
    throw Rejected{owner + " declares " + std::to_string(count) + " options but no table"};
  std::vector<OptionInfo> out;
  for (int32_t i = 0; i < count; ++i) {
    checkName(options[i].name, owner + " option " + std::to_string(i));
    out.push_back({options[i].name, text(options[i].default_value), text(options[i].description)});
  }
  return out;
}

/** Copies and checks what the entry point returned. */
void describe(const StrataPlugin& p, const std::filesystem::path& file, LoadedPlugin& plugin) {
  if (p.abi_version < STRATA_PLUGIN_ABI_OLDEST || p.abi_version > STRATA_PLUGIN_ABI_VERSION)
    throw Rejected{"built for plugin ABI version " + std::to_string(p.abi_version) +
                   ", this Strata loads versions " + std::to_string(STRATA_PLUGIN_ABI_OLDEST) +
                   " to " + std::to_string(STRATA_PLUGIN_ABI_VERSION)};
  checkName(p.name, "the plugin");
  plugin.name = p.name;
  plugin.version = text(p.version);
  plugin.description = text(p.description);
  if (p.metric_count < 0 || (p.metric_count > 0 && p.metrics == nullptr))
    throw Rejected{"declares metrics but no metric table"};
  if (p.recipe_count < 0 || (p.recipe_count > 0 && p.recipes == nullptr))
    throw Rejected{"declares recipes but no recipe table"};
  for (int32_t i = 0; i < p.metric_count; ++i) {
    const StrataMetric& m = p.metrics[i];
    checkName(m.name, "metric " + std::to_string(i));
    if (m.compute == nullptr)
      throw Rejected{"metric '" + std::string(m.name) + "' has no compute function"};
    MetricEntry entry;
    entry.info = {m.name, text(m.description), m.higher_is_better != 0, file.string()};
    entry.options = copyOptions(m.options, m.option_count, "metric '" + std::string(m.name) + "'");
    entry.compute = m.compute;
    plugin.metrics.push_back(std::move(entry));
  }
  for (int32_t i = 0; i < p.recipe_count; ++i) {
    const StrataRecipe& r = p.recipes[i];
    checkName(r.name, "recipe " + std::to_string(i));
    if (r.run == nullptr)
      throw Rejected{"recipe '" + std::string(r.name) + "' has no run function"};
    plugin.recipes.push_back(
        {r.name, text(r.description),
         copyOptions(r.settings, r.setting_count, "recipe '" + std::string(r.name) + "'"), file,
         plugin.name, plugin.version, r.run, p.abi_version >= 2});
  }
  if (plugin.metrics.empty() && plugin.recipes.empty())
    throw Rejected{"offers no metric and no recipe"};
}

std::string dlerrorText() {
  const char* e = dlerror();
  return e ? e : "unknown dynamic loader error";
}

}  // namespace

const MetricEntry* PluginSet::findMetric(const std::string& name) const {
  for (const auto& p : plugins)
    for (const auto& m : p.metrics)
      if (m.info.name == name) return &m;
  return nullptr;
}

const RecipeEntry* PluginSet::findRecipe(const std::string& name) const {
  for (const auto& p : plugins)
    for (const auto& r : p.recipes)
      if (r.name == name) return &r;
  return nullptr;
}

bool loadPlugin(const std::filesystem::path& file, LoadedPlugin& plugin, PluginFailure& failure) {
  failure = {file, file.stem().string(), ""};
  plugin = {};
  plugin.file = file;
  // RTLD_LOCAL: plugins cannot see each other's symbols; RTLD_NOW: unresolved symbols fail here,
  // not in the middle of a scan.
  void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    failure.reason = "cannot be loaded: " + dlerrorText();
    return false;
  }
  dlerror();
  auto entry = reinterpret_cast<StrataPluginEntry>(dlsym(handle, STRATA_PLUGIN_ENTRY_SYMBOL));
  if (entry == nullptr) {
    failure.reason = std::string("has no ") + STRATA_PLUGIN_ENTRY_SYMBOL + " symbol";
    dlclose(handle);
    return false;
  }
  try {
    const StrataPlugin* description = entry();
    if (description == nullptr)
      throw Rejected{std::string(STRATA_PLUGIN_ENTRY_SYMBOL) + " returned nothing"};
    describe(*description, file, plugin);
    return true;  // never unloaded: its strings and functions are used for the process's life
  } catch (const Rejected& r) {
    failure.reason = r.reason;
  } catch (const std::exception& e) {
    failure.reason = std::string("threw while describing itself: ") + e.what();
  } catch (...) {
    failure.reason = "threw an unknown exception while describing itself";
  }
  if (!plugin.name.empty()) failure.name = plugin.name;
  plugin = {};
  dlclose(handle);
  return false;
}

PluginSet loadPlugins(const std::vector<std::filesystem::path>& folders) {
  PluginSet set;
  set.folders = folders;
  std::set<std::string> names, metricNames, recipeNames;
  for (const auto& folder : folders) {
    std::error_code error;
    if (!std::filesystem::is_directory(folder, error)) continue;
    std::vector<std::filesystem::path> files;
    for (const auto& item : std::filesystem::directory_iterator(folder, error))
      if (item.path().extension() == ".so" && !item.is_directory(error))
        files.push_back(item.path());
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
      LoadedPlugin plugin;
      PluginFailure failure;
      if (!loadPlugin(file, plugin, failure)) {
        set.failures.push_back(std::move(failure));
        continue;
      }
      std::string clash;
      if (names.count(plugin.name))
        clash = "a plugin named '" + plugin.name + "' was already loaded";
      for (const auto& m : plugin.metrics)
        if (clash.empty() && metricNames.count(m.info.name))
          clash = "metric '" + m.info.name + "' is already provided by an earlier plugin";
      for (const auto& r : plugin.recipes)
        if (clash.empty() && recipeNames.count(r.name))
          clash = "recipe '" + r.name + "' is already provided by an earlier plugin";
      if (!clash.empty()) {
        // Its handle stays open (harmless), so nothing it handed out dangles.
        set.failures.push_back({file, plugin.name, clash + "; skipped (the first one found wins)"});
        continue;
      }
      names.insert(plugin.name);
      for (const auto& m : plugin.metrics) metricNames.insert(m.info.name);
      for (const auto& r : plugin.recipes) recipeNames.insert(r.name);
      set.plugins.push_back(std::move(plugin));
    }
  }
  return set;
}

const PluginSet& installedPlugins() {
  static const PluginSet set = loadPlugins(pluginFolders());
  return set;
}

}  // namespace strata::plugin
