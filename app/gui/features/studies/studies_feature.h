#pragma once
// The studies feature: Training ▸ Run Study… runs one of the paper replications (DiHAL, DCDM,
// REPR-ALIGN; docs/studies/) as one background job with progress and Cancel, in the training
// slot (a study trains its runs one after another). Each run is an ordinary run folder the
// Training tab can follow; when the study stops, its plots are drawn and its results open in a
// Study tab. Training ▸ Open Study Results… shows a study folder's results (one still running
// in strata-cli, too).

#include <QObject>
#include <QString>

#include "common/job.h"
#include "feature.h"

namespace strata {

class StudyView;
class Workbench;
struct StudyChoice;

class StudiesFeature final : public Feature {
  Q_OBJECT

 public:
  using Feature::Feature;
  void install(Workbench& workbench) override;

  /** Starts `choice` (false, with a log line, when the training slot is taken). */
  bool startStudy(const StudyChoice& choice);
  /** The Study tab of `folder` (opened, or focused and reloaded). */
  StudyView* showStudy(const QString& folder);

 signals:
  void studyFinished(const QString& folder, strata::JobOutcome outcome);

 private:
  void showStudyDialog();
  void openStudyResults();

  Workbench* m_workbench = nullptr;
};

}  // namespace strata
