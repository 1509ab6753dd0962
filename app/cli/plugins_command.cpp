// `strata-cli plugins`: the plugins found at start-up — each metric and recipe with its plugin,
// file, description, direction and options — the folders searched, and the plugins skipped.

#include <iostream>
#include <nlohmann/json.hpp>

#include "command_line.h"
#include "commands.h"
#include "plugin/plugin_loader.h"

namespace strata::cli {
namespace {

nlohmann::json optionsJson(const std::vector<plugin::OptionInfo>& options) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& o : options)
    out.push_back({{"name", o.name}, {"default", o.defaultValue}, {"description", o.description}});
  return out;
}

nlohmann::json pluginsJson(const plugin::PluginSet& set) {
  nlohmann::json plugins = nlohmann::json::array(), failures = nlohmann::json::array(),
                 folders = nlohmann::json::array();
  for (const auto& f : set.folders) folders.push_back(f.string());
  for (const auto& p : set.plugins) {
    nlohmann::json metrics = nlohmann::json::array(), recipes = nlohmann::json::array();
    for (const auto& m : p.metrics)
      metrics.push_back({{"name", m.info.name},
                         {"kind", "metric"},
                         {"description", m.info.description},
                         {"higher_is_better", m.info.higherIsBetter},
                         {"options", optionsJson(m.options)}});
    for (const auto& r : p.recipes)
      recipes.push_back({{"name", r.name},
                         {"kind", "recipe"},
                         {"description", r.description},
                         {"plans_memory", r.plansMemory},
                         {"settings", optionsJson(r.settings)}});
    plugins.push_back({{"name", p.name},
                       {"version", p.version},
                       {"description", p.description},
                       {"file", p.file.string()},
                       {"metrics", metrics},
                       {"recipes", recipes}});
  }
  for (const auto& f : set.failures)
    failures.push_back({{"name", f.name}, {"file", f.file.string()}, {"reason", f.reason}});
  return {{"folders", folders}, {"plugins", plugins}, {"failures", failures}};
}

void printOptions(const std::vector<plugin::OptionInfo>& options, const char* word) {
  for (const auto& o : options)
    std::cout << "      " << word << " " << o.name << "=" << o.defaultValue << "  " << o.description
              << "\n";
}

void printPlugins(const plugin::PluginSet& set) {
  std::cout << "plugin folders (searched in order):\n";
  for (const auto& f : set.folders) std::cout << "  " << f.string() << "\n";
  std::cout << "\n" << set.plugins.size() << " plugin(s) loaded\n";
  for (const auto& p : set.plugins) {
    std::cout << "\n"
              << p.name << " " << p.version << " — " << p.description
              << "\n  file: " << p.file.string() << "\n";
    for (const auto& m : p.metrics) {
      std::cout << "  metric " << m.info.name << " ("
                << (m.info.higherIsBetter ? "higher" : "lower")
                << " is better): " << m.info.description << "\n";
      printOptions(m.options, "option");
    }
    for (const auto& r : p.recipes) {
      std::cout << "  recipe " << r.name << ": " << r.description << " (strata-cli train " << r.name
                << " --set KEY=VALUE)"
                << (r.plansMemory ? "" : " — built for plugin ABI 1: its memory is not planned")
                << "\n";
      printOptions(r.settings, "setting");
    }
  }
  if (!set.failures.empty()) {
    std::cout << "\n" << set.failures.size() << " plugin(s) skipped\n";
    for (const auto& f : set.failures)
      std::cout << "  " << f.name << " (" << f.file.string() << "): " << f.reason << "\n";
  }
}

}  // namespace

int runPlugins(const Arguments& args) {
  CommandLine cli(
      "plugins",
      "List the metric and recipe plugins found at start-up: each folder of\n"
      "STRATA_PLUGIN_PATH (colon separated), then the installation's lib/strata/plugins.\n"
      "Plugins that failed to load are listed with the reason; they are skipped.");
  cli.flag("json", "print the list as JSON");
  if (!cli.parse(args)) {
    std::cout << cli.help();
    return 0;
  }
  const plugin::PluginSet& set = plugin::installedPlugins();
  if (cli.isSet("json"))
    std::cout << pluginsJson(set).dump(2) << "\n";
  else
    printPlugins(set);
  return 0;
}

}  // namespace strata::cli
