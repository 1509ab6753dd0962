#pragma once
// StoreSummaryView: a tab showing an activation store (.h5) — the model it was captured from,
// its shape, and which layers are complete. It shows a StoreSummary snapshot read on a worker
// thread by core's readStoreSummary (HDF5 I/O never runs on the GUI thread); GUI thread only.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "io/store/store_summary.h"
#include "summary_form.h"

namespace strata {

class StoreSummaryView final : public SummaryForm {
  Q_OBJECT

 public:
  explicit StoreSummaryView(std::shared_ptr<const io::StoreSummary> summary,
                            QWidget* parent = nullptr);

  const io::StoreSummary& summary() const { return *m_summary; }
  QString path() const;

 private:
  std::shared_ptr<const io::StoreSummary> m_summary;
};

/** A store's sampling policy as "key: value" lines (long ones broken at spaces); a policy that
 *  is not a JSON object as it is. */
QString samplingText(const std::string& policy);

}  // namespace strata
