#pragma once
// Workbench: everything a feature (app/gui/features/<feature>/) may ask of the window, and
// nothing more — tabs keyed by path, menus by id, background jobs, error reports, the open
// models and stores, the metrics feeds the tabs share, the one training slot, the runs root, the
// installed features and the services they offer each other (services.h: opening a path, the
// Training tab). Features talk to each other only through this interface and the signals of
// WorkbenchEvents, never through each other's members, so a feature can be read (and deleted)
// on its own, as Qt Creator's plugins talk through ICore. MainWindow implements it. GUI thread
// only.

#include <QList>
#include <QObject>
#include <QString>
#include <QWidget>
#include <QtGlobal>
#include <functional>
#include <memory>
#include <typeinfo>

#include "common/job.h"
#include "feature.h"

class QAction;

namespace strata {

class JobController;
class LogDock;
class MetricsFeeds;
class ProjectDock;
namespace io {
struct ModelSummary;
struct StoreSummary;
}  // namespace io

/** The frame's own places in the menus, by id (as Qt Creator's ActionManager names its menus
 *  and groups). Every other menu is a feature's: it declares it by an id of its own
 *  (Workbench::declareMenu). */
namespace menuid {
/** File, before Recent: the Open… entries. */
inline const QString kFileOpen = QStringLiteral("file.open");
/** File, before Quit: Preferences… and the like. */
inline const QString kFileSettings = QStringLiteral("file.settings");
/** The Help menu, last in the menu bar. */
inline const QString kHelp = QStringLiteral("help");
}  // namespace menuid

/** The one training a window runs at a time (a training run, or a job that trains runs one
 *  after another). The feature that takes it names what holds it by an id of its own choosing,
 *  so others can say what is training; the frame knows none of them. */
struct TrainingSlot {
  QString holder;  ///< what holds the slot, by its feature's id; empty while the slot is free
  QString folder;  ///< the folder the holder trains into (a run's, a sweep's, a study's)
  QString recipe;  ///< the run's recipe (empty when not one run, or when run.json is unreadable)
  bool isFree() const { return holder.isEmpty(); }
};

/** What happened in the window that other features may follow. Emitted by the feature (or the
 *  frame) named on each signal; anyone connects. */
class WorkbenchEvents final : public QObject {
  Q_OBJECT

 public:
  using QObject::QObject;

 signals:
  /** Open: a model or store finished opening and its tab is shown. */
  void pathOpened(const QString& path);
  /** Frame: `view` was added as a tab under `key` (before it is shown). */
  void tabAdded(QWidget* view, const QString& key);
  /** Geometry: the Layer Geometry tab of `storeFile` was opened or given a new report. */
  void geometryShown(const QString& storeFile);
  /** Training: a training job for `folder` started (new or resumed); the slot holds it. */
  void trainingStarted(const QString& folder);
  /** Frame: the runs root changed (Workbench::setRunsRoot). */
  void runsRootChanged(const QString& root);
};

class Workbench {
 public:
  virtual ~Workbench() = default;

  // The frame.
  /** The parent for dialogs (the window). */
  virtual QWidget* dialogParent() = 0;
  virtual WorkbenchEvents& events() = 0;
  /** False for throw-away windows (screenshots, tests): no QSettings reads or writes. */
  virtual bool persistSettings() const = 0;
  virtual LogDock& log() = 0;
  virtual ProjectDock& projects() = 0;
  /** The metrics feeds the window's tabs share (metrics_feeds.h): features hand it to every
   *  view that follows a run's metrics, so a run is read once however many tabs show it. */
  virtual MetricsFeeds& metricsFeeds() = 0;
  /** Declares the menu-bar menu `id`, titled `title`: it goes after the menus declared before
   *  it (features are installed in menu order, feature.h) and before View and Help. Declaring
   *  an id again finds the menu (the first title stays), so every feature that fills a menu
   *  declares it, and none depends on another being installed. */
  virtual void declareMenu(const QString& id, const QString& title) = 0;
  /** Adds `action` to the menu or place `id`: a menuid:: place or a declared menu (any other id
   *  is a programming error and stops the program). The window takes no ownership: parent the
   *  action yourself. */
  virtual void addMenuAction(const QString& id, QAction* action) = 0;
  /** A permanent widget at the right of the status bar, after the job progress. */
  virtual void addStatusWidget(QWidget* widget) = 0;
  virtual void showStatusMessage(const QString& text, int milliseconds) = 0;

  // Tabs, each keyed by a path ("<store>#geometry" for views of a file, "strata:training" for
  // the window's own).
  /** The open tab under `key`, or nullptr. */
  virtual QWidget* tab(const QString& key) const = 0;
  /** The key of the current tab; empty when none. */
  virtual QString currentTabKey() const = 0;
  /** Brings up the tab under `key`; false when none is open. */
  virtual bool focusTab(const QString& key) = 0;
  /** Adds `view` as the current tab under `key` (the tab area owns it). */
  virtual void addTab(QWidget* view, const QString& key, const QString& title) = 0;
  /** The one "open or focus": brings up the tab under `key`, or adds the one `create` makes.
   *  Returns the tab. */
  QWidget* showTab(const QString& key, const QString& title,
                   const std::function<QWidget*()>& create) {
    if (focusTab(key)) return tab(key);
    QWidget* view = create();
    addTab(view, key, title);
    return view;
  }
  template <class View>
  View* tabAs(const QString& key) const {
    return qobject_cast<View*>(tab(key));
  }

  // Background jobs.
  using JobDone = std::function<void(JobOutcome, const QString& error)>;
  /** Runs `work` in a background job shown in the status bar (progress, Cancel) whose
   *  messages go to the log; `done` runs on the GUI thread when it ended. Every job of the
   *  window starts here, so MainWindow::busy() sees it. The controller is deleted after
   *  `done`; keep it in a QPointer. */
  virtual JobController* startJob(const QString& name, JobWork work, JobDone done) = 0;

  // Errors.
  /** Logs `error` and shows the error dialog: `summary` ("Could not …"), `error`, and as
   *  copyable details `context` (lines such as "Model: …"), the error and the Strata version. */
  virtual void reportFailure(const QString& summary, const QString& error,
                             const QString& context = {}) = 0;

  // The open models and stores (the open feature registers them), keyed by clean path.
  virtual void addModel(const QString& folder, std::shared_ptr<const io::ModelSummary> summary) = 0;
  virtual std::shared_ptr<const io::ModelSummary> model(const QString& folder) const = 0;
  virtual void addStore(const QString& file, std::shared_ptr<const io::StoreSummary> summary) = 0;
  virtual std::shared_ptr<const io::StoreSummary> store(const QString& file) const = 0;
  /** The model actions use: the one selected in the project dock, else the current tab's,
   *  else the last opened; empty when no model is open. */
  virtual QString currentModel() const = 0;
  /** The same for activation stores (a tab "<store>#…" belongs to its store). */
  virtual QString currentStore() const = 0;

  // The training slot: one training at a time.
  virtual const TrainingSlot& trainingSlot() const = 0;
  /** Takes the slot for `slot.holder`; the caller has checked that it is free. */
  virtual void occupyTrainingSlot(TrainingSlot slot) = 0;
  virtual void freeTrainingSlot() = 0;

  /** Where runs are listed and new runs go by default. */
  virtual QString runsRoot() const = 0;
  virtual void setRunsRoot(const QString& root) = 0;

  // The features (feature.h), installed in menu order.
  virtual const QList<Feature*>& features() const = 0;
  /** The installed feature of type F (e.g. `feature<CaptureFeature>()`), or nullptr. For the
   *  frame's callers — main.cpp and the tests; a feature never asks for another. */
  template <class F>
  F* feature() const {
    for (Feature* installed : features())
      if (auto* found = qobject_cast<F*>(installed)) return found;
    return nullptr;
  }
  /** The feature that offers `Service` (services.h); one always does, so a missing one is a
   *  programming error and stops the program. */
  template <class Service>
  Service& service() const {
    for (Feature* installed : features())
      if (auto* found = dynamic_cast<Service*>(installed)) return *found;
    qFatal("Strata: no installed feature offers %s", typeid(Service).name());
  }
};

}  // namespace strata
