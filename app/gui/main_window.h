#pragma once
// MainWindow: the workbench's frame and nothing more — a tab area where views plug in, the
// project dock (left), the log dock (bottom), a status bar with the running jobs, the menus, the
// open models and stores, the training slot and the runs root. It implements Workbench
// (workbench.h) and installs the features (features/<feature>/), each of which adds its menu
// actions and owns its state: open (opening models, stores, runs), capture, geometry (Score
// Layers…, the Layer Geometry and layer detail tabs), default_geometry (Open Default Model),
// verify, training (the Training tab), routing (Chunk Routing), alignment, bridge (the Bridge,
// Bridgeability and Generate tabs, sweeps), preferences (Preferences…, About, the device line).
// The public methods below the frame's own are thin forwarders to the features, kept for the
// view tests and main.cpp. GUI thread only.

#include <QMainWindow>
#include <QMap>
#include <QPointer>
#include <filesystem>
#include <functional>
#include <memory>

#include "bridge_view.h"  // for callers of bridgeView()
#include "common/job.h"
#include "engine/capture.h"
#include "engine/training_run.h"
#include "error_dialog.h"
#include "job_controller.h"  // JobOutcome's metatype, for captureFinished
#include "project_dock.h"
#include "recent_files.h"
#include "score_layers_dialog.h"  // GeometryScanSettings
#include "training_view.h"        // for callers of trainingView()
#include "workbench.h"

class QAction;
class QMenu;
class QStackedWidget;
class QTabWidget;

namespace strata {

class AlignmentView;
class AlignmentFeature;
class BackgroundJobs;
class BridgeabilityView;
class BridgeFeature;
class CaptureFeature;
class ChunkRoutingView;
class DefaultGeometryFeature;
class GeneratePanel;
class GeometryFeature;
class JobProgressWidget;
class LayerDetailView;
class LayerGeometryView;
class LogDock;
class OpenFeature;
class PreferencesFeature;
class RoutingFeature;
class StudiesFeature;
class TrainingFeature;
class VerifyFeature;
struct TransformersVerification;

class MainWindow final : public QMainWindow, public Workbench {
  Q_OBJECT

 public:
  struct Options {
    /** Read and write QSettings (geometry, dock state, recent files). Off for screenshots. */
    bool persistSettings = true;
  };
  /** Receives every error the window reports; the default shows an ErrorDialog. */
  using ErrorReporter = std::function<void(const ErrorReport&)>;

  explicit MainWindow(Options options, QWidget* parent = nullptr);
  explicit MainWindow(QWidget* parent = nullptr) : MainWindow(Options{}, parent) {}
  ~MainWindow() override;

  void setErrorReporter(ErrorReporter reporter);
  /** True while any background job runs (every job starts through startJob). */
  bool busy() const;

  ProjectDock* projectDock() const { return m_projectDock; }
  LogDock* logDock() const { return m_logDock; }
  QTabWidget* tabs() const { return m_tabs; }
  JobProgressWidget* jobProgress() const { return m_jobProgress; }
  RecentFiles& recentFiles() { return m_recent; }

  // Workbench.
  QWidget* dialogParent() override { return this; }
  WorkbenchEvents& events() override { return *m_events; }
  bool persistSettings() const override { return m_options.persistSettings; }
  LogDock& log() override { return *m_logDock; }
  ProjectDock& projects() override { return *m_projectDock; }
  void addMenuAction(MenuSection section, QAction* action) override;
  void addStatusWidget(QWidget* widget) override;
  void showStatusMessage(const QString& text, int milliseconds) override;
  QWidget* tab(const QString& key) const override;
  QString currentTabKey() const override;
  bool focusTab(const QString& key) override;
  void addTab(QWidget* view, const QString& key, const QString& title) override;
  JobController* startJob(const QString& name, JobWork work, JobDone done) override;
  void reportFailure(const QString& summary, const QString& error,
                     const QString& context = {}) override;
  void addModel(const QString& folder, std::shared_ptr<const ModelSummary> summary) override;
  std::shared_ptr<const ModelSummary> model(const QString& folder) const override;
  void addStore(const QString& file, std::shared_ptr<const StoreSummary> summary) override;
  std::shared_ptr<const StoreSummary> store(const QString& file) const override;
  QString currentModel() const override;
  QString currentStore() const override;
  const TrainingSlot& trainingSlot() const override { return m_trainingSlot; }
  void occupyTrainingSlot(TrainingSlot holder) override { m_trainingSlot = std::move(holder); }
  void freeTrainingSlot() override { m_trainingSlot = {}; }
  /** Where the Training tab lists runs and new runs go by default (QSettings
   *  "training/runsRoot", else defaultRunsRoot() made absolute). */
  QString runsRoot() const override { return m_runsRoot; }
  void setRunsRoot(const QString& root) override;
  void openPath(const QString& path) override;
  void openModelFolder(const QString& folder) override;
  void openActivationStore(const QString& file) override;
  void showTrainingRun(const QString& run) override;
  QString shownTrainingRun() const override;
  void openTrainingLauncher(const QString& recipe, const QMap<QString, QString>& values) override;

  // Forwarders to the features (see each feature's header).
  QAction* preferencesAction() const;
  QAction* aboutAction() const;
  QAction* openDefaultModelAction() const;
  QAction* captureAction() const;
  QAction* verifyAction() const;
  QAction* scoreLayersAction() const;
  std::shared_ptr<const TransformersVerification> verification(const QString& modelFolder) const;
  LayerGeometryView* geometryView(const QString& storeFile) const;
  LayerDetailView* layerDetailView(const QString& storeFile, qint64 layer) const;
  void startGeometryScan(const QString& storeFile, const GeometryScanSettings& settings);
  void showLayerDetail(const QString& storeFile, qint64 layer);
  TrainingView* trainingView() const;
  BridgeView* bridgeView() const;
  BridgeabilityView* bridgeabilityView(const QString& folder) const;
  GeneratePanel* generatePanel(const QString& bridgeRun) const;
  ChunkRoutingView* chunkRoutingView(const QString& dcdmRun) const;
  AlignmentView* alignmentView(const QString& alignRun) const;
  /** Training ▸ Run Study… and the Study tabs. */
  StudiesFeature* studiesFeature() const { return m_studies; }
  /** The sweep folder a bridgeability sweep of this window trains in, or empty. */
  QString sweepFolder() const;

 public slots:
  void openDefaultModel();
  void showCaptureDialog();
  void startCapture(const strata::CaptureConfig& config);
  void verifyModel(const QString& modelFolder = {});
  void showTrainingView();
  void showTrainingLaunchDialog();
  bool startTrainingRun(strata::TrainingRequest request);
  void showBridgeView();
  void openSweepFolder(const QString& folder);
  void showGeneratePanel(const QString& bridgeRun = {});
  void showChunkRouting(const QString& dcdmRun = {});
  void showAlignment(const QString& alignRun = {});

 signals:
  /** A model or store finished opening and its tab is shown. */
  void pathOpened(const QString& path);
  /** Opening `path` failed; the error was reported. */
  void openFailed(const QString& path, const QString& error);
  /** The last running background job has finished (busy() is false now). */
  void jobsFinished();
  /** File ▸ Open Default Model's job ended (Succeeded: its store is being opened). */
  void defaultGeometryFinished(strata::JobOutcome outcome);
  /** A capture into `output` ended (Succeeded: the store is being opened). */
  void captureFinished(const QString& output, strata::JobOutcome outcome);
  /** A verification of `modelFolder` ended (Succeeded: its table and badge are shown). */
  void verificationFinished(const QString& modelFolder, strata::JobOutcome outcome);
  /** A geometry scan of `storeFile` ended (Succeeded: /geometry is written, the tab shown). */
  void geometryFinished(const QString& storeFile, strata::JobOutcome outcome);
  /** The Layer Geometry tab of `storeFile` was opened or given a new report. */
  void geometryShown(const QString& storeFile);
  /** The detail tab of `layer` of `storeFile` is shown. */
  void layerDetailShown(const QString& storeFile, qint64 layer);
  /** A training job for `folder` started (new or resumed). */
  void trainingStarted(const QString& folder);
  /** The training job of `folder` ended (Cancelled: stopped, resumable). */
  void trainingFinished(const QString& folder, strata::JobOutcome outcome);
  /** The Bridge tab was given the l* of `store`'s score (-1: none). */
  void bridgeLayerSuggested(const QString& store, qint64 layer);
  /** A bridgeability sweep into `folder` ended (Succeeded: its tab is shown). */
  void bridgeSweepFinished(const QString& folder, strata::JobOutcome outcome);
  /** A hybrid generation with `bridgeRun` ended (Succeeded: the panel shows the comparison). */
  void generationFinished(const QString& bridgeRun, strata::JobOutcome outcome);

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void createMenus();
  void createViewMenu();
  void rebuildRecentMenu();
  void installFeatures();
  void restoreSettings();
  void saveSettings() const;
  void updateCentralPage();

  Options m_options;
  ErrorReporter m_errorReporter;
  RecentFiles m_recent;
  WorkbenchEvents* m_events;
  QStackedWidget* m_central;
  QTabWidget* m_tabs;
  ProjectDock* m_projectDock;
  LogDock* m_logDock;
  JobProgressWidget* m_jobProgress;
  BackgroundJobs* m_jobs;
  QMap<MenuSection, QMenu*> m_menus;
  QMenu* m_fileMenu = nullptr;
  QMenu* m_recentMenu = nullptr;
  QAction* m_quitSeparator = nullptr;  ///< File ▸ Preferences… and the like go before it
  QMap<QString, std::shared_ptr<const ModelSummary>> m_models;
  QMap<QString, std::shared_ptr<const StoreSummary>> m_stores;
  TrainingSlot m_trainingSlot;
  QString m_runsRoot;

  // The features, children of this window, in install order.
  OpenFeature* m_open = nullptr;
  DefaultGeometryFeature* m_defaultGeometry = nullptr;
  CaptureFeature* m_capture = nullptr;
  VerifyFeature* m_verify = nullptr;
  GeometryFeature* m_geometry = nullptr;
  TrainingFeature* m_training = nullptr;
  RoutingFeature* m_routing = nullptr;
  AlignmentFeature* m_alignment = nullptr;
  StudiesFeature* m_studies = nullptr;
  BridgeFeature* m_bridge = nullptr;
  PreferencesFeature* m_preferences = nullptr;
};

}  // namespace strata
