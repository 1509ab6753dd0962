#include "io/store/store_summary.h"

#include <nlohmann/json.hpp>

namespace strata::io {

StoreSummary readStoreSummary(const std::filesystem::path& file) {
  const ActivationStore store = ActivationStore::open(file);
  StoreSummary summary;
  summary.file = file;
  summary.meta = store.meta();
  summary.numTokens = store.numTokens();
  summary.completedLayers = store.completedLayers();
  return summary;
}

std::vector<std::pair<std::string, std::string>> samplingPolicyFields(const std::string& policy) {
  // ordered_json: the writer put the corpus first and the derived counts last; keep that.
  const auto json = nlohmann::ordered_json::parse(policy, nullptr, /*allow_exceptions=*/false);
  std::vector<std::pair<std::string, std::string>> fields;
  if (!json.is_object()) return fields;
  for (const auto& [key, value] : json.items())
    fields.emplace_back(key, value.is_string() ? value.get<std::string>() : value.dump());
  return fields;
}

}  // namespace strata::io
