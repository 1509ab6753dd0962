#pragma once
// StoreSummaryView: a tab showing an activation store (.h5) — the model it was captured from,
// its shape, and which layers are complete. It shows a StoreSummary snapshot read on a worker
// thread (HDF5 I/O never runs on the GUI thread); GUI thread only.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <vector>

#include "io/activation_store.h"
#include "summary_form.h"

namespace strata {

/** What the views need of a store, copied out so the file can be closed at once. */
struct StoreSummary {
  std::filesystem::path file;
  StoreMeta meta;
  int64_t numTokens = 0;
  std::vector<int64_t> completedLayers;
};

/** Opens `file` and copies its summary. Blocking I/O: call from a job. Throws strata::Error. */
StoreSummary readStoreSummary(const std::filesystem::path& file);

class StoreSummaryView final : public SummaryForm {
  Q_OBJECT

 public:
  explicit StoreSummaryView(std::shared_ptr<const StoreSummary> summary, QWidget* parent = nullptr);

  const StoreSummary& summary() const { return *m_summary; }
  QString path() const;

 private:
  std::shared_ptr<const StoreSummary> m_summary;
};

/** "0–5, 7, 9–11": sorted layer indices as ranges. */
QString layerRangesText(std::vector<int64_t> layers);

}  // namespace strata
