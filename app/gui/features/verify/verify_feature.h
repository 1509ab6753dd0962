#pragma once
// The verify feature: Model ▸ Verify against Transformers (also in the project dock's model
// menu). Core's verifyAgainstTransformers runs in a background job; the result becomes a table
// in the model's tab (this session's result is added to every tab of that model as it opens)
// and a badge beside the model in the project dock. A missing transformers, or a model either
// side cannot load, is an error dialog.

#include <QMap>
#include <QObject>
#include <QStringList>
#include <memory>

#include "feature.h"
#include "job_controller.h"  // JobOutcome's metatype

class QAction;

namespace strata {

class Workbench;
namespace verify {
struct TransformersVerification;
}  // namespace verify

class VerifyFeature final : public Feature {
  Q_OBJECT

 public:
  using Feature::Feature;
  void install(Workbench& workbench) override;

  /** Model ▸ Verify against Transformers: enabled while a model is open. */
  QAction* verifyAction() const { return m_verifyAction; }
  /** The last verification of `modelFolder` this session, or nullptr. */
  std::shared_ptr<const verify::TransformersVerification> verification(
      const QString& modelFolder) const {
    return m_verifications.value(modelFolder);
  }
  /**
   * Verifies `modelFolder` (empty: the current model) against Hugging Face transformers in a
   * background job (the Python from $STRATA_PYTHON or Strata's environment).
   */
  void verifyModel(const QString& modelFolder = {});

 signals:
  /** A verification of `modelFolder` ended (Succeeded: its table and badge are shown). */
  void verificationFinished(const QString& modelFolder, strata::JobOutcome outcome);

 private:
  /** The project dock's badge of `modelFolder` from its last verification ("not verified"). */
  void showBadge(const QString& modelFolder);
  void showVerification(const QString& modelFolder,
                        std::shared_ptr<const verify::TransformersVerification> result);

  Workbench* m_workbench = nullptr;
  QAction* m_verifyAction = nullptr;
  QMap<QString, std::shared_ptr<const verify::TransformersVerification>> m_verifications;
  QStringList m_verifying;  ///< model folders whose verification job is running
};

}  // namespace strata
