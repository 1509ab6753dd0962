#pragma once
// The bridge feature: DiHAL's replace step — the Bridge menu, the Bridge tab, Bridgeability
// sweeps and their tabs, and Generate tabs. The Bridge tab takes its model, store and l* from
// what is open (l* from the Layer Geometry tab's weights when that tab is open, else read from
// the store's /geometry as the recipe would); Train Bridge… is the ordinary training launcher
// on recipe "bridge", so the run is an ordinary run the Training tab lists too. A sweep
// (bridge_sweep.cpp) runs core's runBridgeSweep in a job holding the workbench's training slot;
// Generate… compares original and hybrid continuations in a job, one generation at a time.

#include <QObject>
#include <QPointer>
#include <QString>
#include <memory>

#include "bridge_view.h"  // QPointer needs the complete type
#include "feature.h"
#include "job_controller.h"  // JobOutcome's metatype

namespace strata {

class BridgeabilityView;
class GeneratePanel;
class Workbench;
namespace recipes {
struct BridgeSweepConfig;
struct BridgeSweepResult;
}  // namespace recipes

class BridgeFeature final : public Feature {
  Q_OBJECT

 public:
  using Feature::Feature;
  void install(Workbench& workbench) override;

  /** The Bridge tab, or nullptr while it is not open. */
  BridgeView* bridgeView() const { return m_bridgeView; }
  /** The open Bridgeability tab of the sweep in `folder`, or nullptr. */
  BridgeabilityView* bridgeabilityView(const QString& folder) const;
  /** The open Generate tab of `bridgeRun`, or nullptr. */
  GeneratePanel* generatePanel(const QString& bridgeRun) const;
  /** The sweep folder a bridgeability sweep of this window trains in, or empty. */
  QString sweepFolder() const;

  /** Opens the Bridge tab (creating it when closed), filled from the current model and store,
   *  l* from the store's score. */
  void showBridgeView();
  /** The training launcher on recipe "bridge", filled from the Bridge tab; OK trains it. */
  void showBridgeLaunchDialog();
  /** Opens the Generate tab of `bridgeRun` (empty: the Bridge tab's run, else asks). */
  void showGeneratePanel(const QString& bridgeRun = {});

  // bridge_sweep.cpp
  /** Opens the (non-modal) sweep dialog, filled from the Bridge tab; OK starts the sweep. */
  void showBridgeSweepDialog();
  /** Runs core's runBridgeSweep in a background job (it trains, so it takes the training
   *  slot); the Bridge tab follows its running bridge, success opens the Bridgeability tab. */
  bool startBridgeSweep(const recipes::BridgeSweepConfig& config);
  /** Reads `folder`/sweep.json and shows (or refreshes) its Bridgeability tab. */
  void openSweepFolder(const QString& folder);

 signals:
  /** The Bridge tab was given the l* of `store`'s score (-1: none). */
  void bridgeLayerSuggested(const QString& store, qint64 layer);
  /** A bridgeability sweep into `folder` ended (Succeeded: its tab is shown). */
  void bridgeSweepFinished(const QString& folder, strata::JobOutcome outcome);
  /** A hybrid generation with `bridgeRun` ended (Succeeded: the panel shows the comparison). */
  void generationFinished(const QString& bridgeRun, strata::JobOutcome outcome);

 private:
  // What holds the training slot, by id: this feature's sweeps, the training feature's runs and
  // the studies feature's studies.
  static inline const QString kSweepHolder = QStringLiteral("sweep");
  static inline const QString kRunHolder = QStringLiteral("run");
  static inline const QString kStudyHolder = QStringLiteral("study");

  /** Gives the Bridge tab the l* of its store: the Layer Geometry tab's when open (its
   *  weights), else read from the store in a job (default weights, as the recipe reads it). */
  void suggestBridgeLayer();
  void startHybridGeneration(GeneratePanel* panel);
  void showBridgeability(const QString& folder,
                         std::shared_ptr<const recipes::BridgeSweepResult> result);

  Workbench* m_workbench = nullptr;
  QPointer<BridgeView> m_bridgeView;
  QPointer<JobController> m_generationJob;
  QPointer<JobController> m_layerJob;  ///< reading a store's l* for the Bridge tab
};

}  // namespace strata
