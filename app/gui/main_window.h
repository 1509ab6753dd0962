#pragma once
// MainWindow: the workbench's frame and nothing more — a tab area where views plug in, the
// project dock (left), the log dock (bottom), a status bar with the running jobs, the menus (File,
// View and Help; the features declare the others by id), the open models and stores, the
// metrics feeds the tabs share, the training slot and the runs root. With no tab open the centre
// says what to do, or, while a job runs, shows the newest job's progress (JobProgressPanel); a job
// that failed or was cancelled with no tab open leaves its error under the what-to-do text. It
// implements Workbench (workbench.h) and makes and installs every registered feature (feature.h) in
// menu order, naming none of them; main.cpp and the tests reach a feature through
// Workbench::feature<F>() and follow it through its own signals or WorkbenchEvents. GUI thread
// only.

#include <QMainWindow>
#include <QMap>
#include <functional>
#include <memory>

#include "common/job.h"
#include "error_dialog.h"
#include "project_dock.h"
#include "recent_files.h"
#include "workbench.h"

class QAction;
class QLabel;
class QMenu;
class QStackedWidget;
class QTabWidget;

namespace strata {

class BackgroundJobs;
class JobProgressPanel;
class JobProgressWidget;
class LogDock;
class MetricsFeeds;

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
  /** The centre's progress of the newest job, shown while a job runs and no tab is open. */
  JobProgressPanel* jobPanel() const { return m_jobPanel; }
  /** The centre's what-to-do text (with the last failed or cancelled job's error). */
  QLabel* emptyState() const { return m_emptyState; }
  /** What the centre shows now: tabs(), jobPanel() or emptyState(). */
  QWidget* centralPage() const;
  RecentFiles& recentFiles() { return m_recent; }

  // Workbench.
  QWidget* dialogParent() override { return this; }
  WorkbenchEvents& events() override { return *m_events; }
  bool persistSettings() const override { return m_options.persistSettings; }
  LogDock& log() override { return *m_logDock; }
  ProjectDock& projects() override { return *m_projectDock; }
  MetricsFeeds& metricsFeeds() override { return *m_metricsFeeds; }
  void declareMenu(const QString& id, const QString& title) override;
  void addMenuAction(const QString& id, QAction* action) override;
  void addStatusWidget(QWidget* widget) override;
  void showStatusMessage(const QString& text, int milliseconds) override;
  QWidget* tab(const QString& key) const override;
  QString currentTabKey() const override;
  bool focusTab(const QString& key) override;
  void addTab(QWidget* view, const QString& key, const QString& title) override;
  JobController* startJob(const QString& name, JobWork work, JobDone done) override;
  void reportFailure(const QString& summary, const QString& error,
                     const QString& context = {}) override;
  void addModel(const QString& folder, std::shared_ptr<const io::ModelSummary> summary) override;
  std::shared_ptr<const io::ModelSummary> model(const QString& folder) const override;
  void addStore(const QString& file, std::shared_ptr<const io::StoreSummary> summary) override;
  std::shared_ptr<const io::StoreSummary> store(const QString& file) const override;
  QString currentModel() const override;
  QString currentStore() const override;
  const TrainingSlot& trainingSlot() const override { return m_trainingSlot; }
  void occupyTrainingSlot(TrainingSlot slot) override { m_trainingSlot = std::move(slot); }
  void freeTrainingSlot() override { m_trainingSlot = {}; }
  /** Where the Training tab lists runs and new runs go by default (QSettings
   *  "training/runsRoot", else defaultRunsRoot() made absolute). */
  QString runsRoot() const override { return m_runsRoot; }
  void setRunsRoot(const QString& root) override;
  const QList<Feature*>& features() const override { return m_features; }

 signals:
  /** The last running background job has finished (busy() is false now). */
  void jobsFinished();

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  /** File, View and Help: the frame's own menus; the features declare the others. */
  void createMenus();
  void createViewMenu();
  void rebuildRecentMenu();
  void installFeatures();
  void restoreSettings();
  void saveSettings() const;
  void updateCentralPage();
  /** Keeps the error of a job that failed or was cancelled for the empty state. */
  void noteJobEnded(const QString& name, JobOutcome outcome, const QString& error);

  Options m_options;
  ErrorReporter m_errorReporter;
  RecentFiles m_recent;
  WorkbenchEvents* m_events;
  QStackedWidget* m_central;
  QLabel* m_emptyState;
  JobProgressPanel* m_jobPanel;
  QString m_lastJobNote;  ///< HTML: the last job that failed or was cancelled, else empty
  QTabWidget* m_tabs;
  ProjectDock* m_projectDock;
  LogDock* m_logDock;
  JobProgressWidget* m_jobProgress;
  BackgroundJobs* m_jobs;
  MetricsFeeds* m_metricsFeeds;
  QMap<QString, QMenu*> m_menus;  ///< the declared menus and the frame's Help, by id
  QMenu* m_viewMenu = nullptr;    ///< declared menus go before it
  QMenu* m_fileMenu = nullptr;
  QMenu* m_recentMenu = nullptr;
  QAction* m_quitSeparator = nullptr;  ///< File ▸ Preferences… and the like go before it
  QMap<QString, std::shared_ptr<const io::ModelSummary>> m_models;
  QMap<QString, std::shared_ptr<const io::StoreSummary>> m_stores;
  TrainingSlot m_trainingSlot;
  QString m_runsRoot;

  QList<Feature*> m_features;  ///< children of this window, in install (menu) order
};

}  // namespace strata
