#pragma once
// The capture feature: Model ▸ Capture… (also in the project dock's model menu), and
// CaptureService (services.h) for Geometry ▸ Score Layers… on a model, which captures and then
// scores in one job. The dialog fills a CaptureConfig, core's runCapture runs it in a background
// job (progress and Cancel in the status bar) followed by the service's work, and the finished
// store is opened like any other so it appears under "Activation stores" (and, once scored, its
// Layer Geometry opens). The corpora captured are remembered as recent ones.

#include <QObject>

#include "engine/capture.h"
#include "feature.h"
#include "job_controller.h"  // JobOutcome's metatype
#include "recent_files.h"
#include "services.h"

class QAction;

namespace strata {

class Workbench;

class CaptureFeature final : public Feature, public CaptureService {
  Q_OBJECT

 public:
  using Feature::Feature;
  void install(Workbench& workbench) override;

  /** Model ▸ Capture… (Ctrl+Shift+C): enabled while a model is open. */
  QAction* captureAction() const { return m_captureAction; }
  /** Opens the (non-modal) capture dialog for the current model; OK starts the capture. */
  void showCaptureDialog();
  /** The (non-modal) capture dialog for `model` followed by `after` (none: a plain capture),
   *  its corpus proposed among the recent and built-in ones; OK starts the job. */
  void offerCapture(const QString& model, const AfterCapture& after) override;
  /**
   * Runs `config` in a background job, then `after.work` in the same job when given. Success
   * logs the summary and opens the store; failure shows the error dialog; cancelling keeps the
   * finished layers (a later capture with resume completes the store).
   */
  void startCapture(const engine::CaptureConfig& config, const AfterCapture& after = {});
  /** The corpora captured recently, newest first. */
  QStringList recentCorpora() { return m_recentCorpora.paths(); }

 signals:
  /** A capture into `output` ended (Succeeded: the store is being opened). */
  void captureFinished(const QString& output, strata::JobOutcome outcome);

 private:
  Workbench* m_workbench = nullptr;
  QAction* m_captureAction = nullptr;
  RecentFiles m_recentCorpora{false};  ///< replaced in install() when settings persist
};

}  // namespace strata
