#pragma once
// ModelSummaryView: a tab showing what inspectModelFolder found in a model folder — shape,
// parameters, dtypes, weight files, tokenizer, warnings. Holds an immutable snapshot; GUI
// thread only.

#include <memory>

#include "io/model_folder.h"
#include "summary_form.h"

namespace strata {

class ModelSummaryView final : public SummaryForm {
  Q_OBJECT

 public:
  explicit ModelSummaryView(std::shared_ptr<const ModelSummary> summary, QWidget* parent = nullptr);

  const ModelSummary& summary() const { return *m_summary; }
  /** The folder this view shows, as the project dock and the tab tooltip name it. */
  QString path() const;

 private:
  std::shared_ptr<const ModelSummary> m_summary;
};

}  // namespace strata
