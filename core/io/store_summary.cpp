#include "io/store_summary.h"

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

}  // namespace strata::io
