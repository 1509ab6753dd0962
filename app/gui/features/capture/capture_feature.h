#pragma once
// The capture feature: Model ▸ Capture… (also in the project dock's model menu). The dialog
// fills a CaptureConfig, core's runCapture runs it in a background job (progress and Cancel in
// the status bar), and the finished store is opened like any other so it appears under
// "Activation stores".

#include <QObject>

#include "engine/capture.h"
#include "feature.h"
#include "job_controller.h"  // JobOutcome's metatype

class QAction;

namespace strata {

class Workbench;

class CaptureFeature final : public Feature {
  Q_OBJECT

 public:
  using Feature::Feature;
  void install(Workbench& workbench) override;

  /** Model ▸ Capture… (Ctrl+Shift+C): enabled while a model is open. */
  QAction* captureAction() const { return m_captureAction; }
  /** Opens the (non-modal) capture dialog for the current model; OK starts the capture. */
  void showCaptureDialog();
  /**
   * Runs `config` in a background job. Success logs the summary and opens the store; failure
   * shows the error dialog; cancelling keeps the finished layers (a later capture with resume
   * completes the store).
   */
  void startCapture(const engine::CaptureConfig& config);

 signals:
  /** A capture into `output` ended (Succeeded: the store is being opened). */
  void captureFinished(const QString& output, strata::JobOutcome outcome);

 private:
  Workbench* m_workbench = nullptr;
  QAction* m_captureAction = nullptr;
};

}  // namespace strata
