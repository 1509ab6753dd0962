#pragma once
// TransformersVerificationView: the result of Model ▸ Verify against Transformers (core's
// verifyAgainstTransformers) as a table — one row per hidden state h_0 … h_L, then the final
// norm and the logits, with max |Δ|, max |h| under transformers and their ratio — above lines for
// top-1 agreement, tokenization and the verdict. Displays an immutable snapshot; computes
// nothing. GUI thread only.

#include <QWidget>
#include <memory>

#include "verify/transformers_verification.h"

class QLabel;
class QTableWidget;

namespace strata {

class TransformersVerificationView final : public QWidget {
  Q_OBJECT

 public:
  explicit TransformersVerificationView(
      std::shared_ptr<const verify::TransformersVerification> result, QWidget* parent = nullptr);

  const verify::TransformersVerification& result() const { return *m_result; }
  /** Columns: Hidden state, max |Δ|, max |h| (transformers), Relative. */
  QTableWidget* table() const { return m_table; }
  /** The verdict line shown above the table (core's verdict()). */
  QString verdictText() const;
  /** "Top-1 agreement: …" and "Tokenization: …" as shown. */
  QString summaryText() const;

 private:
  std::shared_ptr<const verify::TransformersVerification> m_result;
  QLabel* m_verdict;
  QLabel* m_summary;
  QTableWidget* m_table;
};

/** The project dock's badge: "✓ matches transformers 5.25.0", "✗ differs from transformers
 *  5.25.0", or "not verified" when `result` is null. */
QString verificationBadge(const verify::TransformersVerification* result);

}  // namespace strata
