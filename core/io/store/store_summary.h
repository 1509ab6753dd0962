#pragma once
// StoreSummary: what the workbench shows of an activation store — its /meta, how many tokens
// and which layers are complete — copied out so the file can be closed at once. No Qt.

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "io/store/activation_store.h"

namespace strata::io {

struct StoreSummary {
  std::filesystem::path file;
  StoreMeta meta;
  int64_t numTokens = 0;
  std::vector<int64_t> completedLayers;
};

/** Opens `file` and copies its summary. Blocking I/O: call from a job. Throws strata::Error. */
StoreSummary readStoreSummary(const std::filesystem::path& file);

/**
 * StoreMeta::samplingPolicy (a JSON object, as capture writes it) as (key, value) texts in the
 * file's order, for showing: strings bare, numbers and booleans as JSON writes them, arrays and
 * objects as compact JSON. Empty when the text is not a JSON object (a store from elsewhere
 * may hold free text: show that as it is).
 */
std::vector<std::pair<std::string, std::string>> samplingPolicyFields(const std::string& policy);

}  // namespace strata::io
