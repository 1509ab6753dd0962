#pragma once
// The routing feature: Training ▸ Chunk Routing… opens the Chunk Routing tab of a dcdm run —
// the run shown in the Training tab when it is one, else a run folder the user picks. The tab
// routes texts in background jobs it starts through the workbench (so the window knows they
// run); this feature only checks the run and adds the tab.

#include <QObject>

#include "feature.h"

namespace strata {

class ChunkRoutingView;
class Workbench;

class RoutingFeature final : public Feature {
  Q_OBJECT

 public:
  using Feature::Feature;
  void install(Workbench& workbench) override;

  /** The open Chunk Routing tab of `dcdmRun`, or nullptr. */
  ChunkRoutingView* chunkRoutingView(const QString& dcdmRun) const;
  /** The tab of `dcdmRun` (empty: the Training tab's run when it is a dcdm run, else asks);
   *  any other folder is reported as an error. */
  void showChunkRouting(const QString& dcdmRun = {});

 private:
  Workbench* m_workbench = nullptr;
};

}  // namespace strata
