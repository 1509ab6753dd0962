#include "plugin/plugin_metric.h"

#include <cmath>

#include "common/error.h"
#include "plugin/metric_options_text.h"

namespace strata::plugin {

PluginMetric::PluginMetric(const MetricEntry& metric, std::string options)
    : m_metric(metric), m_options(std::move(options)) {
  const std::string field = "plugin metric " + metric.info.name + " options";
  for (const auto& [name, value] : optionPairs(m_options)) {
    if (!value) throw ConfigError({}, field, "'" + name + "' is not of the form name=value");
    bool known = false;
    std::string list;
    for (const auto& o : m_metric.options) {
      known = known || o.name == name;
      list += (list.empty() ? "" : ", ") + o.name;
    }
    if (!known)
      throw ConfigError({}, field,
                        "has no option '" + name +
                            "' (it has: " + (list.empty() ? std::string("none") : list) + ")");
  }
}

double PluginMetric::compute(const geometry::HiddenStates& layer,
                             const geometry::HiddenStates* previous) {
  const StrataMatrix current{layer.data, layer.rows, layer.cols};
  StrataMatrix before{};
  if (previous) before = {previous->data, previous->rows, previous->cols};
  double value = std::nan("");
  char error[1024] = {0};
  int status = 0;
  const std::string who = "plugin metric " + m_metric.info.name + " (" + m_metric.info.source + ")";
  try {
    status = m_metric.compute(&current, previous ? &before : nullptr, m_options.c_str(), &value,
                              error, sizeof error);
  } catch (const std::exception& e) {
    // The ABI forbids exceptions; one that escapes anyway is still reported, not fatal.
    throw Error(who + " threw: " + e.what());
  } catch (...) {
    throw Error(who + " threw an unknown exception");
  }
  error[sizeof error - 1] = 0;
  if (status != 0)
    throw Error(who + " failed: " +
                (error[0] ? std::string(error)
                          : "no reason given (status " + std::to_string(status) + ")"));
  return value;
}

std::vector<std::unique_ptr<geometry::LayerMetric>> makePluginMetrics(
    const PluginSet& plugins, const std::map<std::string, std::string>& options) {
  for (const auto& [name, text] : options)
    if (!plugins.findMetric(name))
      throw ConfigError({}, "plugin metric options",
                        "no loaded plugin provides a metric '" + name + "'");
  std::vector<std::unique_ptr<geometry::LayerMetric>> out;
  for (const auto& p : plugins.plugins)
    for (const auto& m : p.metrics) {
      const auto it = options.find(m.info.name);
      out.push_back(
          std::make_unique<PluginMetric>(m, it == options.end() ? std::string() : it->second));
    }
  return out;
}

std::vector<geometry::LayerMetric*> pointers(
    const std::vector<std::unique_ptr<geometry::LayerMetric>>& metrics) {
  std::vector<geometry::LayerMetric*> out;
  for (const auto& m : metrics) out.push_back(m.get());
  return out;
}

}  // namespace strata::plugin
