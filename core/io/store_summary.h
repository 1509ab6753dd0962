#pragma once
// StoreSummary: what the workbench shows of an activation store — its /meta, how many tokens
// and which layers are complete — copied out so the file can be closed at once. No Qt.

#include <cstdint>
#include <filesystem>
#include <vector>

#include "io/activation_store.h"

namespace strata::io {

struct StoreSummary {
  std::filesystem::path file;
  StoreMeta meta;
  int64_t numTokens = 0;
  std::vector<int64_t> completedLayers;
};

/** Opens `file` and copies its summary. Blocking I/O: call from a job. Throws strata::Error. */
StoreSummary readStoreSummary(const std::filesystem::path& file);

}  // namespace strata::io
