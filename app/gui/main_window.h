#pragma once
// MainWindow: the workbench's frame and nothing more — a tab area where views plug in, the
// project dock (left), the log dock (bottom), a status bar with the compute device and the
// running job, and the File / View / Help menus. Opening things runs core work in background
// jobs (JobController); results arrive as immutable snapshots and become dock entries and tabs.
// GUI thread only. Split by feature: main_window.cpp (frame, menus, settings, drag and drop),
// main_window_open.cpp (opening models and stores), main_window_capture.cpp (Capture…),
// main_window_geometry.cpp (Score Layers…, the Layer Geometry and layer detail tabs),
// main_window_training.cpp (Start Training…, the Training tab, pause / resume / stop),
// main_window_bridge.cpp (the Bridge tab, hybrid generation), main_window_sweep.cpp
// (bridgeability sweeps and their tab), main_window_routing.cpp (the Chunk Routing tab),
// main_window_alignment.cpp (the Alignment tab), main_window_preferences.cpp (Preferences…,
// About), main_window_default_geometry.cpp (Open Default Model: its cached Layer Geometry),
// main_window_verify.cpp (Verify against Transformers).

#include <QMainWindow>
#include <QMap>
#include <QPointer>
#include <filesystem>
#include <functional>
#include <memory>

#include "bridge_view.h"  // QPointer needs the complete type
#include "engine/capture.h"
#include "common/job.h"
#include "engine/training_run.h"
#include "error_dialog.h"
#include "job_controller.h"  // JobOutcome's metatype, for captureFinished
#include "project_dock.h"
#include "recent_files.h"
#include "score_layers_dialog.h"  // GeometryScanSettings
#include "training_view.h"        // QPointer needs the complete type

class QAction;
class QLabel;
class QMenu;
class QStackedWidget;
class QTabWidget;

namespace strata {

namespace geometry {
struct GeometryReport;
}
class AlignmentView;
class BridgeabilityView;
struct BridgeSweepConfig;
struct BridgeSweepResult;
class GeneratePanel;
class ChunkRoutingView;
class JobController;
class JobProgressWidget;
class LayerDetailView;
class LayerGeometryView;
class LogDock;
struct ModelSummary;
struct TransformersVerification;
struct StoreSummary;

class MainWindow final : public QMainWindow {
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

  /** A folder opens as a model, a .h5/.hdf5 file as an activation store; else an error. */
  void openPath(const QString& path);
  void openModelFolder(const QString& folder);
  void openActivationStore(const QString& file);

  void setErrorReporter(ErrorReporter reporter);
  /** True while any background job runs. */
  bool busy() const { return !m_jobs.isEmpty(); }

  ProjectDock* projectDock() const { return m_projectDock; }
  LogDock* logDock() const { return m_logDock; }
  QTabWidget* tabs() const { return m_tabs; }
  JobProgressWidget* jobProgress() const { return m_jobProgress; }
  RecentFiles& recentFiles() { return m_recent; }
  /** File ▸ Preferences… (Ctrl+,). */
  QAction* preferencesAction() const { return m_preferencesAction; }
  /** Help ▸ About Strata (opens an AboutDialog child of this window). */
  QAction* aboutAction() const { return m_aboutAction; }
  /** File ▸ Open Default Model (Ctrl+D): enabled when the built-in default model is found. */
  QAction* openDefaultModelAction() const { return m_openDefaultModelAction; }
  /** Model ▸ Capture… (Ctrl+Shift+C): enabled while a model is open. */
  QAction* captureAction() const { return m_captureAction; }
  /** The model Capture… uses: the one selected in the project dock, else the current tab's,
   *  else the last opened; empty when no model is open. */
  QString currentModel() const;
  /** Model ▸ Verify against Transformers: enabled while a model is open. */
  QAction* verifyAction() const { return m_verifyAction; }
  /** The last verification of `modelFolder` this session, or nullptr. */
  std::shared_ptr<const TransformersVerification> verification(const QString& modelFolder) const {
    return m_verifications.value(modelFolder);
  }
  /** Geometry ▸ Score Layers… (Ctrl+Shift+G): enabled while an activation store is open. */
  QAction* scoreLayersAction() const { return m_scoreLayersAction; }
  /** The store Score Layers… uses: the one selected in the project dock, else the current
   *  tab's, else the last opened; empty when no store is open. */
  QString currentStore() const;
  /** The open Layer Geometry tab of `storeFile`, or nullptr. */
  LayerGeometryView* geometryView(const QString& storeFile) const;
  /** The open detail tab of `layer` of `storeFile`, or nullptr. */
  LayerDetailView* layerDetailView(const QString& storeFile, qint64 layer) const;

  /**
   * Scores every completed layer of `storeFile` (core's scanStore) in a background job with
   * progress and Cancel, writes the report into the store as /geometry and opens (or
   * refreshes) its Layer Geometry tab. Failure shows the error dialog; cancelling writes
   * nothing. A second scan of a store already being scored is refused with a log line.
   */
  void startGeometryScan(const QString& storeFile, const GeometryScanSettings& settings);
  /** Opens the detail tab of `layer` (its PCA is computed in a background job first). */
  void showLayerDetail(const QString& storeFile, qint64 layer);

  /** Training ▸ Start Training… (Ctrl+T). */
  QAction* startTrainingAction() const { return m_startTrainingAction; }
  /** The Training tab, or nullptr while it is not open. */
  TrainingView* trainingView() const { return m_trainingView; }
  /** Where the Training tab lists runs and new runs go by default (QSettings
   *  "training/runsRoot", else defaultRunsRoot() made absolute). */
  QString runsRoot() const { return m_runsRoot; }
  void setRunsRoot(const QString& root);
  /** The run folder this window trains in, or empty. */
  QString trainingFolder() const { return m_trainingFolder; }

  /** The Bridge tab, or nullptr while it is not open. */
  BridgeView* bridgeView() const { return m_bridgeView; }
  /** The open Bridgeability tab of the sweep in `folder`, or nullptr. */
  BridgeabilityView* bridgeabilityView(const QString& folder) const;
  /** The open Generate tab of `bridgeRun`, or nullptr. */
  GeneratePanel* generatePanel(const QString& bridgeRun) const;
  /** The open Chunk Routing tab of `dcdmRun`, or nullptr. */
  ChunkRoutingView* chunkRoutingView(const QString& dcdmRun) const;
  /** The open Alignment tab of `alignRun`, or nullptr. */
  AlignmentView* alignmentView(const QString& alignRun) const;
  /** The sweep folder a bridgeability sweep of this window trains in, or empty. */
  QString sweepFolder() const { return m_sweepFolder; }

 public slots:
  /** Opens the (non-modal) Preferences dialog; OK applies them and, in persistSettings
   *  windows, saves them. */
  void showPreferences();
  /** Opens the (non-modal) About dialog. */
  void showAbout();
  /**
   * File ▸ Open Default Model (and `strata --default`): opens the built-in default model and
   * lands on its Layer Geometry, captured and scored in one background job the first time and
   * read from the store cached in the user's data folder afterwards (core's cachedGeometry).
   */
  void openDefaultModel();
  /** Opens the (non-modal) capture dialog for currentModel(); OK starts the capture. */
  void showCaptureDialog();
  /**
   * Runs `config` in a background job with progress and Cancel in the status bar. Success
   * logs the summary and opens the store; failure shows the error dialog; cancelling keeps
   * the finished layers (a later capture with resume completes the store).
   */
  void startCapture(const strata::CaptureConfig& config);
  /**
   * Verifies `modelFolder` (empty: currentModel()) against Hugging Face transformers in a
   * background job (core's verifyAgainstTransformers, the Python from $STRATA_PYTHON or Strata's
   * environment). The result table goes into the model's tab, the badge into the project dock;
   * a missing transformers or a model that does not load is an error dialog.
   */
  void verifyModel(const QString& modelFolder = {});
  /** Opens the (non-modal) Score Layers dialog for currentStore(); OK starts the scan. */
  void showScoreLayersDialog();
  /** Opens the Training tab (creating it when closed). */
  void showTrainingView();
  /** Opens the (non-modal) launcher for the registered recipes; OK starts the run. */
  void showTrainingLaunchDialog();
  /**
   * Trains `request` (startTraining) in a background job; the Training tab follows the run.
   * One training job at a time: a second is refused with a log line (returns false).
   */
  bool startTrainingRun(strata::TrainingRequest request);
  /** Unpauses the run this window trains when that is `folder`; else resumes `folder` from
   *  its newest checkpoint in a new job (resumeTraining). */
  bool resumeTrainingRun(const QString& folder);
  /** Pauses the running training (TrainingControl); the job keeps its thread and memory. */
  void pauseTraining();
  /** Cancels the training job: the engine checkpoints, marks the run stopped and returns. */
  void stopTraining();

  /** Opens the Bridge tab (creating it when closed), filled from the current model and store,
   *  l* from the store's score. */
  void showBridgeView();
  /** The training launcher on recipe "bridge", filled from the Bridge tab; OK trains it. */
  void showBridgeLaunchDialog();
  /** Opens the (non-modal) sweep dialog, filled from the Bridge tab; OK starts the sweep. */
  void showBridgeSweepDialog();
  /**
   * Runs core's runBridgeSweep in a background job (it trains, so not beside a training job);
   * the Bridge tab follows its running bridge, success opens the Bridgeability tab.
   */
  bool startBridgeSweep(const strata::BridgeSweepConfig& config);
  /** Reads `folder`/sweep.json and shows (or refreshes) its Bridgeability tab. */
  void openSweepFolder(const QString& folder);
  /** Opens the Generate tab of `bridgeRun` (empty: the Bridge tab's run, else asks). */
  void showGeneratePanel(const QString& bridgeRun = {});
  /** Training ▸ Chunk Routing…: the tab of `dcdmRun` (empty: the Training tab's run when it
   *  is a dcdm run, else asks). */
  void showChunkRouting(const QString& dcdmRun = {});
  /** Training ▸ Alignment…: the tab of the repr_align run `alignRun` (empty: the Training
   *  tab's run when it is one, else asks); any other folder is reported as an error. */
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
  void createStatusBar();
  void restoreSettings();
  void saveSettings() const;
  void rebuildRecentMenu();
  void createViewMenu();
  /** The status bar's device line: the device jobs default to under the preferences. */
  QString deviceLine() const;
  void updateCentralPage();
  void updateActions();

  // main_window_open.cpp
  using JobDone = std::function<void(JobOutcome, const QString& error)>;
  JobController* startJob(const QString& name, JobWork work, JobDone done);
  void jobEnded(JobController* job);
  void reportError(const ErrorReport& report);
  void failOpen(const QString& path, const QString& summary, const QString& error);
  /** Runs on the worker thread; returns what the GUI thread then runs to show the result. */
  using OpenReader = std::function<std::function<void()>(const std::filesystem::path&)>;
  /** Opens `path` (a `what`, e.g. "model folder") with `read` in a background job. */
  void openInBackground(const QString& path, const QString& what, const char* stage,
                        OpenReader read);
  void showModel(std::shared_ptr<const ModelSummary> summary);
  void showStore(std::shared_ptr<const StoreSummary> summary);
  void activateEntry(ProjectCategory category, const QString& path);
  /** Brings up the tab showing `path`, or returns false when none is open. */
  bool focusTab(const QString& path);
  void addTab(QWidget* view, const QString& path, const QString& title);

  // main_window_verify.cpp
  void createVerifyAction(QMenu* modelMenu);
  /** The model's tab: its summary, and its verification table when it was verified. */
  QWidget* modelView(const QString& modelFolder, std::shared_ptr<const ModelSummary> summary) const;
  /** The project dock's badge of `modelFolder` from its last verification ("not verified"). */
  void showVerificationBadge(const QString& modelFolder);
  void showVerification(const QString& modelFolder,
                        std::shared_ptr<const TransformersVerification> result);

  // main_window_geometry.cpp
  void createGeometryMenu();
  void updateGeometryActions();
  /** After a store opened: reads its /geometry in the background and shows it when present. */
  void loadStoredGeometry(const QString& path);
  void showGeometry(const QString& storeFile,
                    std::shared_ptr<const geometry::GeometryReport> report);

  // main_window_training.cpp
  void createTrainingMenu();
  /** Runs a training `work` for `folder`: the job, the tab's buttons, the log routing. */
  void runTrainingJob(const QString& folder, const QString& what, JobWork work,
                      std::shared_ptr<const TrainingSummary> summary, const QString& details);
  /** The launcher for every recipe; `recipe` and `values` (key → CLI text) preselect and
   *  fill it over the remembered values. */
  void openTrainingLauncher(const QString& recipe, const QMap<QString, QString>& values);
  /** On a job's thread: lower its priority so the GUI thread wins the CPU. */
  static void yieldToTheGui();

  // main_window_bridge.cpp, main_window_sweep.cpp
  void createBridgeMenu();
  /** Gives the Bridge tab the l* of its store: the Layer Geometry tab's when open (its
   *  weights), else read from the store in a job (default weights, as the recipe reads it). */
  void suggestBridgeLayer();
  void showBridgeability(const QString& folder, std::shared_ptr<const BridgeSweepResult> result);
  void startHybridGeneration(GeneratePanel* panel);
  void showRunInTrainingView(const QString& run);

  Options m_options;
  ErrorReporter m_errorReporter;
  RecentFiles m_recent;
  QStackedWidget* m_central;
  QTabWidget* m_tabs;
  ProjectDock* m_projectDock;
  LogDock* m_logDock;
  JobProgressWidget* m_jobProgress;
  QLabel* m_deviceLabel;
  QMenu* m_recentMenu = nullptr;
  QAction* m_preferencesAction = nullptr;
  QAction* m_aboutAction = nullptr;
  QAction* m_openDefaultModelAction = nullptr;
  QAction* m_captureAction = nullptr;
  QAction* m_verifyAction = nullptr;
  QAction* m_scoreLayersAction = nullptr;
  QAction* m_startTrainingAction = nullptr;
  QPointer<TrainingView> m_trainingView;
  QPointer<JobController> m_trainingJob;
  TrainingControl m_trainingControl;  ///< shared with the running training job
  QString m_trainingFolder;
  QString m_runsRoot;
  QString m_trainingRecipe;  ///< of the run this window trains
  QPointer<BridgeView> m_bridgeView;
  QPointer<JobController> m_sweepJob;
  QString m_sweepFolder;
  QPointer<JobController> m_generationJob;
  QPointer<JobController> m_layerJob;  ///< reading a store's l* for the Bridge tab
  QPointer<JobController> m_defaultGeometryJob;  ///< File ▸ Open Default Model's capture + score
  QList<JobController*> m_jobs;  ///< running, oldest first; children of this window
  QStringList m_opening;         ///< paths whose open job is running
  QStringList m_scanning;        ///< stores whose geometry scan is running
  QStringList m_loadingDetails;  ///< detail tab keys whose PCA job is running
  QMap<QString, std::shared_ptr<const ModelSummary>> m_models;
  QMap<QString, std::shared_ptr<const StoreSummary>> m_stores;
  QMap<QString, std::shared_ptr<const TransformersVerification>> m_verifications;
  QStringList m_verifying;  ///< model folders whose verification job is running
};

}  // namespace strata
