#pragma once
// ModelSummaryView: a tab showing what inspectModelFolder found in a model folder — shape,
// parameters, dtypes, weight files, tokenizer, warnings. Holds an immutable snapshot; GUI
// thread only.

#include <QPointer>
#include <memory>

#include "io/model_folder.h"
#include "summary_form.h"
#include "transformers_verification_view.h"  // QPointer needs the complete type

namespace strata {

class ModelSummaryView final : public SummaryForm {
  Q_OBJECT

 public:
  explicit ModelSummaryView(std::shared_ptr<const io::ModelSummary> summary,
                            QWidget* parent = nullptr);

  const io::ModelSummary& summary() const { return *m_summary; }
  /** The folder this view shows, as the project dock and the tab tooltip name it. */
  QString path() const;

  /** Shows (or replaces) the result of Verify against Transformers below the summary. */
  void showVerification(std::shared_ptr<const verify::TransformersVerification> result);
  /** The verification table, or nullptr while the model has not been verified. */
  TransformersVerificationView* verificationView() const { return m_verification; }

 private:
  std::shared_ptr<const io::ModelSummary> m_summary;
  QPointer<QWidget> m_verificationBox;  ///< holds m_verification
  QPointer<TransformersVerificationView> m_verification;
};

}  // namespace strata
