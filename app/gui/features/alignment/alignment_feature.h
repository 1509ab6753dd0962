#pragma once
// The alignment feature: Training ▸ Alignment… opens the Alignment tab of a repr_align run —
// the run shown in the Training tab when it is one, else a run folder the user picks. The tab
// follows the run's metrics itself; this feature only checks the run and adds the tab.

#include <QObject>

#include "feature.h"

namespace strata {

class AlignmentView;
class Workbench;

class AlignmentFeature final : public Feature {
  Q_OBJECT

 public:
  using Feature::Feature;
  void install(Workbench& workbench) override;

  /** The open Alignment tab of `alignRun`, or nullptr. */
  AlignmentView* alignmentView(const QString& alignRun) const;
  /** The tab of the repr_align run `alignRun` (empty: the Training tab's run when it is one,
   *  else asks); any other folder is reported as an error. */
  void showAlignment(const QString& alignRun = {});

 private:
  Workbench* m_workbench = nullptr;
};

}  // namespace strata
