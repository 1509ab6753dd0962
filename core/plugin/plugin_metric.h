#pragma once
// A plugin's metric as a geometry::LayerMetric: the scan calls it like any metric; this adapter
// turns the C call into a value or a strata::Error that names the metric and its plugin file.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "geometry/layer_metric.h"
#include "plugin/plugin_loader.h"

namespace strata::plugin {

class PluginMetric final : public geometry::LayerMetric {
 public:
  /**
   * `options`: "name=value" pairs separated by ';' (or newlines). Throws ConfigError when a
   * name is not one the metric declares, before the plugin is ever called.
   */
  PluginMetric(const MetricEntry& metric, std::string options = {});

  const geometry::MetricInfo& info() const override { return m_metric.info; }
  /**
   * Calls the plugin. An error it returns, or an exception that escapes it, becomes a
   * strata::Error naming the metric and file. A crash inside the plugin cannot be caught.
   */
  double compute(const geometry::HiddenStates& layer,
                 const geometry::HiddenStates* previous) override;

 private:
  MetricEntry m_metric;
  std::string m_options;
};

/**
 * Every metric of `plugins`, in plugin then declaration order. `options` maps a metric name to
 * its options text (see PluginMetric); throws ConfigError for an options entry whose metric no
 * plugin provides.
 */
std::vector<std::unique_ptr<geometry::LayerMetric>> makePluginMetrics(
    const PluginSet& plugins, const std::map<std::string, std::string>& options = {});

/** Non-owning pointers for scanStore. */
std::vector<geometry::LayerMetric*> pointers(
    const std::vector<std::unique_ptr<geometry::LayerMetric>>& metrics);

}  // namespace strata::plugin
