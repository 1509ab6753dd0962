#include "plugin/metric_options_text.h"

#include <sstream>

#include "common/error.h"

namespace strata::plugin {
namespace {

std::string trimmed(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

}  // namespace

std::map<std::string, std::string> parseMetricOptionsText(const std::string& text) {
  std::map<std::string, std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (trimmed(item).empty()) continue;
    const auto colon = item.find(':');
    if (colon == std::string::npos || trimmed(item.substr(0, colon)).empty())
      throw ConfigError({}, "plugin metric options",
                        "must be METRIC:K=V[;K=V][,METRIC:...], got '" + text + "'");
    out[trimmed(item.substr(0, colon))] = item.substr(colon + 1);
  }
  return out;
}

std::string metricOptionsText(const std::map<std::string, std::string>& options) {
  std::string out;
  for (const auto& [metric, text] : options) {
    if (trimmed(text).empty()) continue;
    if (!out.empty()) out += ',';
    out += metric + ':' + text;
  }
  return out;
}

std::vector<std::pair<std::string, std::optional<std::string>>> optionPairs(
    const std::string& options) {
  std::vector<std::pair<std::string, std::optional<std::string>>> out;
  std::stringstream in(options);
  std::string item;
  while (std::getline(in, item, ';')) {
    std::stringstream lines(item);
    std::string line;
    while (std::getline(lines, line)) {
      line = trimmed(line);
      if (line.empty()) continue;
      const auto eq = line.find('=');
      if (eq == std::string::npos) {
        out.emplace_back(trimmed(line), std::nullopt);
      } else {
        out.emplace_back(trimmed(line.substr(0, eq)), trimmed(line.substr(eq + 1)));
      }
    }
  }
  return out;
}

}  // namespace strata::plugin
