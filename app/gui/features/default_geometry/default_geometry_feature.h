#pragma once
// The default geometry feature: File ▸ Open Default Model (and `strata --default`) opens the
// built-in default model and lands on its Layer Geometry. Capture and scoring run as one
// background job, "Layer geometry of <model>" (progress and Cancel in the status bar, and in the
// window's centre while no tab is open), the first time; afterwards the store
// cached in the user's data folder is read (core's cachedGeometry), so the second opening takes
// about a second. The store is then opened like any other, and the geometry feature shows its
// /geometry.

#include <QObject>
#include <QPointer>

#include "feature.h"
#include "job_controller.h"  // JobOutcome's metatype

class QAction;

namespace strata {

class Workbench;

class DefaultGeometryFeature final : public Feature {
  Q_OBJECT

 public:
  using Feature::Feature;
  void install(Workbench& workbench) override;

  /** File ▸ Open Default Model (Ctrl+D): enabled when the built-in default model is found. */
  QAction* openDefaultModelAction() const { return m_action; }
  /** Opens the default model and its cached (or newly computed) Layer Geometry. */
  void openDefaultModel();

 signals:
  /** The job ended (Succeeded: its store is being opened). */
  void defaultGeometryFinished(strata::JobOutcome outcome);

 private:
  /** Opens `model` and, once it is open, `store` (whose /geometry then opens in front). */
  void openStoreAfterModel(const QString& model, const QString& store);

  Workbench* m_workbench = nullptr;
  QAction* m_action = nullptr;
  QPointer<JobController> m_job;  ///< the capture + score, while it runs
};

}  // namespace strata
