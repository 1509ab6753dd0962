#include "main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMimeData>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>

#include "background_jobs.h"
#include "clean_path.h"
#include "common/build_info.h"
#include "display_text.h"
#include "engine/run_folder.h"
#include "gui_settings.h"
#include "job_progress_panel.h"
#include "job_progress_widget.h"
#include "log_dock.h"
#include "metrics_feeds.h"
#include "readable_tabs.h"
#include "services.h"
#include "tab_keys.h"

namespace strata {
namespace {

const char* const kPathProperty = "strataPath";

/** The centre's text while nothing is open or running. */
QString welcomeText() {
  return QObject::tr(
      "<h2>Strata</h2><p>Open a Hugging Face model folder (<b>Ctrl+O</b>) or an activation store "
      "(<b>Ctrl+Shift+O</b>),<br>or drop one onto this window.</p>");
}
const QString kRunsRootKey = QStringLiteral("training/runsRoot");

bool isStoreFile(const QFileInfo& info) {
  const QString suffix = info.suffix().toLower();
  return info.isFile() && (suffix == QLatin1String("h5") || suffix == QLatin1String("hdf5"));
}

/** The local paths in a drop that Strata can open: folders and .h5 files. */
QStringList openablePaths(const QMimeData* mime) {
  QStringList paths;
  if (!mime || !mime->hasUrls()) return paths;
  for (const QUrl& url : mime->urls()) {
    if (!url.isLocalFile()) continue;
    const QFileInfo info(url.toLocalFile());
    const bool gguf =
        info.isFile() && info.suffix().compare(QLatin1String("gguf"), Qt::CaseInsensitive) == 0;
    if (info.isDir() || isStoreFile(info) || gguf) paths << info.absoluteFilePath();
  }
  return paths;
}

}  // namespace

MainWindow::MainWindow(Options options, QWidget* parent)
    : QMainWindow(parent),
      m_options(options),
      m_recent(options.persistSettings),
      m_events(new WorkbenchEvents(this)),
      m_central(new QStackedWidget(this)),
      m_emptyState(new QLabel(welcomeText(), this)),
      m_jobPanel(new JobProgressPanel(this)),
      m_tabs(new ReadableTabWidget(this)),
      m_projectDock(new ProjectDock(this)),
      m_logDock(new LogDock(this)),
      m_jobProgress(new JobProgressWidget(this)),
      m_jobs(new BackgroundJobs(*m_logDock, *m_jobProgress, this)),
      m_metricsFeeds(new MetricsFeeds(this)) {
  setWindowTitle(tr("Strata"));
  setAcceptDrops(true);
  m_errorReporter = [this](const ErrorReport& report) { showErrorDialog(this, report); };
  connect(m_jobs, &BackgroundJobs::allFinished, this, &MainWindow::jobsFinished);

  m_runsRoot = cleanAbsolute(toQString(engine::defaultRunsRoot()));
  if (m_options.persistSettings)
    m_runsRoot = guiSettings().value(kRunsRootKey, m_runsRoot).toString();

  m_emptyState->setAlignment(Qt::AlignCenter);
  m_emptyState->setWordWrap(true);
  m_emptyState->setForegroundRole(QPalette::PlaceholderText);
  m_emptyState->setTextInteractionFlags(Qt::TextSelectableByMouse);  // an error to copy
  m_central->addWidget(m_emptyState);
  m_central->addWidget(m_jobPanel);
  m_central->addWidget(m_tabs);
  setCentralWidget(m_central);

  m_tabs->setTabsClosable(true);
  m_tabs->setMovable(true);
  m_tabs->setDocumentMode(true);
  // Many tabs stay usable: long titles elided in the middle (the full one is the tooltip), never
  // below a readable width (ReadableTabBar), and scroll buttons once they do not fit.
  m_tabs->setElideMode(Qt::ElideMiddle);
  m_tabs->setUsesScrollButtons(true);
  connect(m_tabs, &QTabWidget::tabCloseRequested, this, [this](int index) {
    QWidget* view = m_tabs->widget(index);
    m_tabs->removeTab(index);
    view->deleteLater();
    updateCentralPage();
  });
  connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::updateCentralPage);

  addDockWidget(Qt::LeftDockWidgetArea, m_projectDock);
  addDockWidget(Qt::BottomDockWidgetArea, m_logDock);
  resizeDocks({m_projectDock}, {240}, Qt::Horizontal);
  resizeDocks({m_logDock}, {130}, Qt::Vertical);

  m_jobProgress->hide();
  statusBar()->addPermanentWidget(m_jobProgress);
  createMenus();
  installFeatures();
  resize(1100, 700);
  if (m_options.persistSettings) restoreSettings();
}

MainWindow::~MainWindow() {
  // Before the features go: running jobs cancel and join, and no `done` runs any more.
  delete m_jobs;
}

void MainWindow::createMenus() {
  // File, View and Help; the features declare theirs between File and View as they are
  // installed, and fill File's places.
  m_fileMenu = menuBar()->addMenu(tr("&File"));
  m_recentMenu = m_fileMenu->addMenu(tr("&Recent"));
  connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
  rebuildRecentMenu();
  m_fileMenu->addSeparator();
  m_quitSeparator = m_fileMenu->addSeparator();
  QAction* quit = m_fileMenu->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Q));
  quit->setMenuRole(QAction::QuitRole);
  createViewMenu();
  m_menus.insert(menuid::kHelp, menuBar()->addMenu(tr("&Help")));
}

void MainWindow::installFeatures() {
  // In menu order: each declares its menus and adds its entries as it is installed.
  for (const FeatureEntry& entry : registeredFeatures()) {
    Feature* feature = entry.create(this);
    feature->setObjectName(QLatin1String(entry.name));
    m_features.append(feature);
    feature->install(*this);
  }
  connect(m_events, &WorkbenchEvents::pathOpened, this,
          [this](const QString& path) { m_recent.add(path); });
}

void MainWindow::declareMenu(const QString& id, const QString& title) {
  if (m_menus.contains(id)) return;
  auto* menu = new QMenu(title, this);
  menuBar()->insertMenu(m_viewMenu->menuAction(), menu);
  m_menus.insert(id, menu);
}

void MainWindow::addMenuAction(const QString& id, QAction* action) {
  if (id == menuid::kFileOpen) {
    m_fileMenu->insertAction(m_recentMenu->menuAction(), action);
  } else if (id == menuid::kFileSettings) {
    m_fileMenu->insertAction(m_quitSeparator, action);
  } else if (QMenu* menu = m_menus.value(id)) {
    menu->addAction(action);
  } else {
    qFatal("Strata: no menu \"%s\" was declared for \"%s\"", qUtf8Printable(id),
           qUtf8Printable(action->text()));
  }
}

void MainWindow::createViewMenu() {
  QMenu* view = m_viewMenu = menuBar()->addMenu(tr("&View"));
  QAction* project = m_projectDock->toggleViewAction();
  project->setShortcut(QKeySequence(Qt::ALT | Qt::Key_1));
  view->addAction(project);
  QAction* log = m_logDock->toggleViewAction();
  log->setShortcut(QKeySequence(Qt::ALT | Qt::Key_2));
  view->addAction(log);
  view->addSeparator();
  QAction* next = view->addAction(tr("&Next Tab"), this, [this] {
    if (m_tabs->count() > 1)
      m_tabs->setCurrentIndex((m_tabs->currentIndex() + 1) % m_tabs->count());
  });
  next->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_PageDown));
  QAction* previous = view->addAction(tr("&Previous Tab"), this, [this] {
    if (m_tabs->count() > 1)
      m_tabs->setCurrentIndex((m_tabs->currentIndex() + m_tabs->count() - 1) % m_tabs->count());
  });
  previous->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_PageUp));
  QAction* close = view->addAction(tr("&Close Tab"), this, [this] {
    if (m_tabs->count() > 0) emit m_tabs->tabCloseRequested(m_tabs->currentIndex());
  });
  close->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_W));
  QAction* fullScreen = view->addAction(
      tr("&Full Screen"), this, [this] { setWindowState(windowState() ^ Qt::WindowFullScreen); });
  fullScreen->setShortcut(QKeySequence(Qt::Key_F11));
  view->addSeparator();
  view->addAction(m_logDock->copyAllAction());
}

void MainWindow::rebuildRecentMenu() {
  m_recentMenu->clear();
  const QStringList paths = m_recent.paths();
  for (const QString& path : paths) {
    QAction* action = m_recentMenu->addAction(
        QFileInfo(path).fileName(), this, [this, path] { service<OpenService>().openPath(path); });
    action->setToolTip(path);
    action->setStatusTip(path);
  }
  if (paths.isEmpty()) m_recentMenu->addAction(tr("(none)"))->setEnabled(false);
  m_recentMenu->addSeparator();
  QAction* clear = m_recentMenu->addAction(tr("Clear Recent"), this, [this] {
    m_recent.clear();
    rebuildRecentMenu();
  });
  clear->setEnabled(!paths.isEmpty());
}

void MainWindow::addStatusWidget(QWidget* widget) { statusBar()->addPermanentWidget(widget); }

void MainWindow::showStatusMessage(const QString& text, int milliseconds) {
  statusBar()->showMessage(text, milliseconds);
}

void MainWindow::updateCentralPage() {
  // Tabs first; else the newest job's progress (the first job of a session would otherwise run
  // behind "Open a model folder…"); else what to do, with the last job's error if it failed.
  JobController* newest = m_jobs->newest();
  QWidget* page = m_tabs->count() > 0 ? static_cast<QWidget*>(m_tabs)
                  : newest            ? static_cast<QWidget*>(m_jobPanel)
                                      : static_cast<QWidget*>(m_emptyState);
  if (page == m_jobPanel && m_jobPanel->job() != newest) m_jobPanel->setJob(newest);
  if (page != m_jobPanel) m_jobPanel->setJob(nullptr);
  m_emptyState->setText(welcomeText() + m_lastJobNote);
  m_central->setCurrentWidget(page);
  const QString current = m_tabs->count() > 0 ? m_tabs->tabText(m_tabs->currentIndex()) : QString();
  setWindowTitle(current.isEmpty() ? tr("Strata") : tr("%1 — Strata").arg(current));
}

void MainWindow::restoreSettings() {
  const QSettings settings = guiSettings();
  restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
  restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
}

void MainWindow::saveSettings() const {
  QSettings settings = guiSettings();
  settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
  settings.setValue(QStringLiteral("window/state"), saveState());
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (m_options.persistSettings) saveSettings();
  m_jobs->cancelAll();
  QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (!openablePaths(event->mimeData()).isEmpty()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  const QStringList paths = openablePaths(event->mimeData());
  if (paths.isEmpty()) return;
  event->acceptProposedAction();
  for (const QString& path : paths) service<OpenService>().openPath(path);
}

void MainWindow::setErrorReporter(ErrorReporter reporter) { m_errorReporter = std::move(reporter); }

bool MainWindow::busy() const { return !m_jobs->empty(); }

QWidget* MainWindow::centralPage() const { return m_central->currentWidget(); }

JobController* MainWindow::startJob(const QString& name, JobWork work, JobDone done) {
  m_lastJobNote.clear();
  JobController* job =
      m_jobs->start(name, std::move(work),
                    [this, name, done = std::move(done)](JobOutcome outcome, const QString& error) {
                      if (done)
                        done(outcome, error);  // may open the result's tab, or start the next job
                      noteJobEnded(name, outcome, error);
                    });
  updateCentralPage();
  return job;
}

void MainWindow::noteJobEnded(const QString& name, JobOutcome outcome, const QString& error) {
  if (outcome == JobOutcome::Failed)
    m_lastJobNote = tr("<p style='color:#b00020'>%1 failed: %2</p>")
                        .arg(name.toHtmlEscaped(), error.toHtmlEscaped());
  else if (outcome == JobOutcome::Cancelled)
    m_lastJobNote = tr("<p>%1 was cancelled.</p>").arg(name.toHtmlEscaped());
  updateCentralPage();
}

void MainWindow::reportFailure(const QString& summary, const QString& error,
                               const QString& context) {
  ErrorReport report;
  report.summary = summary;
  report.error = error;
  report.details = (context.isEmpty() ? QString() : context + QLatin1Char('\n')) +
                   tr("Error: %1\nStrata %2").arg(error, QLatin1String(build::kVersion));
  m_logDock->append(MessageLevel::Error, report.error.isEmpty() ? report.summary : report.error);
  if (m_errorReporter) m_errorReporter(report);
}

QWidget* MainWindow::tab(const QString& key) const {
  for (int i = 0; i < m_tabs->count(); ++i)
    if (m_tabs->widget(i)->property(kPathProperty).toString() == key) return m_tabs->widget(i);
  return nullptr;
}

QString MainWindow::currentTabKey() const {
  const QWidget* current = m_tabs->currentWidget();
  return current ? current->property(kPathProperty).toString() : QString();
}

bool MainWindow::focusTab(const QString& key) {
  QWidget* view = tab(key);
  if (!view) return false;
  m_tabs->setCurrentWidget(view);
  updateCentralPage();
  return true;
}

void MainWindow::addTab(QWidget* view, const QString& key, const QString& title) {
  view->setProperty(kPathProperty, key);
  const int index = m_tabs->addTab(view, title);
  m_tabs->setTabToolTip(index, key);
  emit m_events->tabAdded(view, key);
  m_tabs->setCurrentIndex(index);
  updateCentralPage();
}

void MainWindow::addModel(const QString& folder, std::shared_ptr<const io::ModelSummary> summary) {
  m_models.insert(folder, std::move(summary));
}

std::shared_ptr<const io::ModelSummary> MainWindow::model(const QString& folder) const {
  return m_models.value(folder);
}

void MainWindow::addStore(const QString& file, std::shared_ptr<const io::StoreSummary> summary) {
  m_stores.insert(file, std::move(summary));
}

std::shared_ptr<const io::StoreSummary> MainWindow::store(const QString& file) const {
  return m_stores.value(file);
}

QString MainWindow::currentModel() const {
  const QString selected = m_projectDock->selectedEntry(ProjectCategory::Models);
  if (!selected.isEmpty()) return selected;
  if (const QString key = currentTabKey(); m_models.contains(key)) return key;
  const QStringList models = m_projectDock->entries(ProjectCategory::Models);
  return models.isEmpty() ? QString() : models.last();
}

QString MainWindow::currentStore() const {
  const QString selected = m_projectDock->selectedEntry(ProjectCategory::ActivationStores);
  if (!selected.isEmpty()) return selected;
  if (const QString store = tabkey::pathOf(currentTabKey()); m_stores.contains(store)) return store;
  const QStringList stores = m_projectDock->entries(ProjectCategory::ActivationStores);
  return stores.isEmpty() ? QString() : stores.last();
}

void MainWindow::setRunsRoot(const QString& root) {
  const QString clean = cleanAbsolute(root);
  if (clean == m_runsRoot) return;
  m_runsRoot = clean;
  if (m_options.persistSettings) guiSettings().setValue(kRunsRootKey, m_runsRoot);
  emit m_events->runsRootChanged(m_runsRoot);
}

}  // namespace strata
