#pragma once
// strata-cli's view of plugins: loading them once with failures printed to stderr, and the
// score command's --plugin-weights / --plugin-options.

#include <map>
#include <string>
#include <vector>

#include "geometry/layer_metric.h"
#include "plugin/plugin_loader.h"

namespace strata::cli {

/** plugin::installedPlugins(), printing each failure ("plugin FILE skipped: reason") once. */
const plugin::PluginSet& pluginsReportingFailures();

/** "NAME=W,NAME=W" → {NAME: W}; UsageError for a malformed entry or an unknown metric. */
std::map<std::string, double> parsePluginWeights(const std::string& text,
                                                 const plugin::PluginSet& plugins);

/** "NAME:K=V;K=V,NAME:K=V" → {NAME: "K=V;K=V"}; UsageError when malformed. */
std::map<std::string, std::string> parsePluginOptions(const std::string& text);

/** The weights in the order of `metrics`, 0 for those not named. */
std::vector<double> orderedWeights(const std::map<std::string, double>& weights,
                                   const std::vector<geometry::MetricInfo>& metrics);

}  // namespace strata::cli
