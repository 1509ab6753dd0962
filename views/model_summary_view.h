#pragma once
// ModelSummaryView: a tab showing what inspectModelFolder found in a model folder — shape,
// parameters, dtypes, weight files, tokenizer, warnings — with a "Score Layers…" button beside
// the title, the next step for a model just opened (or dropped on the window). Holds an
// immutable snapshot; GUI thread only.

#include <QPointer>
#include <memory>

#include "io/hf/model_folder.h"
#include "summary_form.h"
#include "transformers_verification_view.h"  // QPointer needs the complete type

class QPushButton;

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
  /** "Score Layers…" beside the title: emits scoreLayersRequested. */
  QPushButton* scoreLayersButton() const { return m_scoreLayers; }

 signals:
  /** The user asked to score this model's layers (capturing its hidden states first). */
  void scoreLayersRequested();

 private:
  std::shared_ptr<const io::ModelSummary> m_summary;
  QPushButton* m_scoreLayers;
  QPointer<QWidget> m_verificationBox;  ///< holds m_verification
  QPointer<TransformersVerificationView> m_verification;
};

}  // namespace strata
