#include "plugin_arguments.h"

#include <iostream>
#include <sstream>

#include "command_line.h"
#include "common/error.h"
#include "plugin/metric_options_text.h"

namespace strata::cli {
namespace {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, separator))
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace

const plugin::PluginSet& pluginsReportingFailures() {
  static const plugin::PluginSet& set = []() -> const plugin::PluginSet& {
    const auto& loaded = plugin::installedPlugins();
    for (const auto& f : loaded.failures)
      std::cerr << "plugin " << f.name << " (" << f.file.string() << ") skipped: " << f.reason
                << "\n";
    return loaded;
  }();
  return set;
}

std::map<std::string, double> parsePluginWeights(const std::string& text,
                                                 const plugin::PluginSet& plugins) {
  std::map<std::string, double> out;
  for (const std::string& item : split(text, ',')) {
    const auto eq = item.find('=');
    const std::string name = item.substr(0, eq);
    double weight = 0;
    try {
      if (eq == std::string::npos) throw std::invalid_argument(item);
      size_t used = 0;
      weight = std::stod(item.substr(eq + 1), &used);
      if (used != item.size() - eq - 1) throw std::invalid_argument(item);
    } catch (const std::exception&) {
      throw UsageError("--plugin-weights must be NAME=W,NAME=W..., got '" + text + "'");
    }
    if (!plugins.findMetric(name))
      throw UsageError("--plugin-weights: no loaded plugin provides a metric '" + name +
                       "' (see `strata-cli plugins`)");
    out[name] = weight;
  }
  return out;
}

std::map<std::string, std::string> parsePluginOptions(const std::string& text) {
  try {
    return plugin::parseMetricOptionsText(text);  // the parser the workbench's form uses too
  } catch (const ConfigError&) {
    throw UsageError("--plugin-options must be METRIC:K=V[;K=V][,METRIC:...], got '" + text + "'");
  }
}

std::vector<double> orderedWeights(const std::map<std::string, double>& weights,
                                   const std::vector<geometry::MetricInfo>& metrics) {
  std::vector<double> out;
  for (const auto& m : metrics) {
    const auto it = weights.find(m.name);
    out.push_back(it == weights.end() ? 0.0 : it->second);
  }
  return out;
}

}  // namespace strata::cli
