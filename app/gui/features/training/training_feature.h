#pragma once
// The training feature: Training ▸ Start Training… and Training Runs, the Training tab, and the
// TrainingService the other features use (services.h: showing a run, the launcher they
// prefill). The launcher builds its form from the recipe's schema; core's startTraining /
// resumeTraining run in a background job that holds the workbench's training slot (one training
// or sweep at a time), and the Training tab follows the run through its folder — the same files
// a strata-cli run writes, so the tab shows both alike. Pause/Resume go through a
// TrainingControl shared with the job; Stop cancels the job, and the engine checkpoints and
// marks the run stopped.

#include <QMap>
#include <QObject>
#include <QPointer>
#include <memory>

#include "engine/training_run.h"
#include "feature.h"
#include "job_controller.h"  // JobOutcome's metatype
#include "services.h"
#include "training_view.h"  // QPointer needs the complete type

class QAction;

namespace strata {

class ProjectRuns;
class TrainingLaunchDialog;

class Workbench;

class TrainingFeature final : public Feature, public TrainingService {
  Q_OBJECT

 public:
  using Feature::Feature;
  void install(Workbench& workbench) override;

  /** The Training tab, or nullptr while it is not open. */
  TrainingView* trainingView() const { return m_view; }
  /** Opens the Training tab (creating it when closed). */
  void showTrainingView();
  /** Opens the Training tab on `run` (added to its list when outside the runs root). */
  void showRun(const QString& run) override;
  /** The run the Training tab shows; empty when none or closed. */
  QString shownRun() const override;
  /** Opens the (non-modal) launcher for the registered recipes with the Preferences' device
   *  and threads; OK starts the run. */
  void showTrainingLaunchDialog();
  /** The launcher for every recipe; `recipe` and `values` (key → CLI text) preselect and
   *  fill it over the remembered values. */
  void openTrainingLauncher(const QString& recipe, const QMap<QString, QString>& values) override;
  /**
   * Trains `request` (startTraining) in a background job; the Training tab follows the run.
   * Refused with a log line (false) while the training slot is taken.
   */
  bool startTrainingRun(engine::TrainingRequest request);
  /** Unpauses the run this window trains when that is `folder`; else resumes `folder` from
   *  its newest checkpoint in a new job (resumeTraining). */
  bool resumeTrainingRun(const QString& folder);
  /** Pauses the running training (TrainingControl); the job keeps its thread and memory. */
  void pauseTraining();
  /** Cancels the training job: the engine checkpoints, marks the run stopped and returns. */
  void stopTraining();

 signals:
  /** The training job of `folder` ended (Cancelled: stopped, resumable). */
  void trainingFinished(const QString& folder, strata::JobOutcome outcome);

 private:
  /** Plans `request` as a job (engine::planTraining) and shows the plan in `dialog`. */
  void planTrainingRun(TrainingLaunchDialog* dialog, const engine::TrainingRequest& request);
  /** Whether the slot is free; else logs why `action` ("starting", …) `folder` is refused. */
  bool slotIsFree(const QString& action, const QString& folder);
  /** Runs a training `work` for `folder`: the job, the slot, the tab's buttons, the log. */
  void runTrainingJob(const QString& folder, const QString& recipe, const QString& what,
                      JobWork work, std::shared_ptr<const engine::TrainingSummary> summary,
                      const QString& details);

  Workbench* m_workbench = nullptr;
  ProjectRuns* m_projectRuns = nullptr;  ///< the dock's Runs; a child of this feature
  QPointer<TrainingView> m_view;
  QPointer<JobController> m_job;
  engine::TrainingControl m_control;  ///< shared with the running training job
};

}  // namespace strata
