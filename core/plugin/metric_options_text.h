#pragma once
// The options text of plugin metrics, as `strata-cli score --plugin-options` takes it and the
// workbench's Score Layers… form writes it: "METRIC:K=V;K=V,METRIC:K=V". Metrics are separated
// by ',', each metric's options by ';' (the form PluginMetric takes), so a value can hold
// neither. One parser for both front ends, so a text copied from one works in the other.

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace strata::plugin {

/**
 * "METRIC:K=V;K=V,METRIC:K=V" → {METRIC: "K=V;K=V"}; empty items are skipped, a later entry
 * for the same metric wins. Throws ConfigError (field "plugin metric options") for an item
 * without "METRIC:". The option names are checked later, against the metric (PluginMetric).
 */
std::map<std::string, std::string> parseMetricOptionsText(const std::string& text);

/** The inverse: metrics in name order, those with empty options left out. */
std::string metricOptionsText(const std::map<std::string, std::string>& options);

/** "K=V; K=V" (or newline-separated) → trimmed (K, V) pairs in order; an item without '='
 *  gives (K, nullopt) — PluginMetric rejects it with the metric's name. */
std::vector<std::pair<std::string, std::optional<std::string>>> optionPairs(
    const std::string& options);

}  // namespace strata::plugin
