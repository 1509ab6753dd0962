#include "main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMimeData>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>

#include "common/build_info.h"
#include "common/install_paths.h"
#include "display_text.h"
#include "engine/run_folder.h"
#include "gui_settings.h"
#include "job_controller.h"
#include "job_progress_widget.h"
#include "log_dock.h"

namespace strata {
namespace {

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
    if (info.isDir() || isStoreFile(info)) paths << info.absoluteFilePath();
  }
  return paths;
}

}  // namespace

MainWindow::MainWindow(Options options, QWidget* parent)
    : QMainWindow(parent),
      m_options(options),
      m_recent(options.persistSettings),
      m_central(new QStackedWidget(this)),
      m_tabs(new QTabWidget(this)),
      m_projectDock(new ProjectDock(this)),
      m_logDock(new LogDock(this)),
      m_jobProgress(new JobProgressWidget(this)),
      m_deviceLabel(new QLabel(this)) {
  setWindowTitle(tr("Strata"));
  setAcceptDrops(true);
  m_errorReporter = [this](const ErrorReport& report) { showErrorDialog(this, report); };

  auto* welcome = new QLabel(tr("<h2>Strata</h2><p>Open a Hugging Face model folder "
                                "(<b>Ctrl+O</b>) or an activation store (<b>Ctrl+Shift+O</b>),"
                                "<br>or drop one onto this window.</p>"),
                             this);
  welcome->setAlignment(Qt::AlignCenter);
  welcome->setForegroundRole(QPalette::PlaceholderText);
  m_central->addWidget(welcome);
  m_central->addWidget(m_tabs);
  setCentralWidget(m_central);

  m_tabs->setTabsClosable(true);
  m_tabs->setMovable(true);
  m_tabs->setDocumentMode(true);
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
  connect(m_projectDock, &ProjectDock::entryActivated, this, &MainWindow::activateEntry);
  connect(this, &MainWindow::pathOpened, this, &MainWindow::loadStoredGeometry);

  createMenus();
  createStatusBar();
  resize(1100, 700);
  if (m_options.persistSettings) restoreSettings();
  m_logDock->append(
      MessageLevel::Info,
      tr("Strata %1 on %2").arg(QLatin1String(build::kVersion), m_deviceLabel->text()));
}

MainWindow::~MainWindow() {
  // Running jobs are children: their controllers cancel and join as they are destroyed.
  for (JobController* job : m_jobs) job->cancel();
}

void MainWindow::createMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* openModel = file->addAction(tr("Open &Model Folder…"), this, [this] {
    const QString folder = QFileDialog::getExistingDirectory(this, tr("Open Model Folder"));
    if (!folder.isEmpty()) openModelFolder(folder);
  });
  openModel->setShortcut(QKeySequence::Open);
  QAction* openStore = file->addAction(tr("Open &Activation Store…"), this, [this] {
    const QString store = QFileDialog::getOpenFileName(this, tr("Open Activation Store"), QString(),
                                                       tr("Activation stores (*.h5 *.hdf5)"));
    if (!store.isEmpty()) openActivationStore(store);
  });
  openStore->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
  m_openDefaultModelAction =
      file->addAction(tr("Open &Default Model"), this, &MainWindow::openDefaultModel);
  m_openDefaultModelAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
  m_openDefaultModelAction->setStatusTip(
      tr("Open the built-in default model (a 4-layer byte-level Llama) on its layer geometry, "
         "computed once and then cached"));
  m_openDefaultModelAction->setEnabled(!defaultModelFolder().empty());
  m_recentMenu = file->addMenu(tr("&Recent"));
  connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
  rebuildRecentMenu();
  file->addSeparator();
  m_preferencesAction = file->addAction(tr("&Preferences…"), this, &MainWindow::showPreferences);
  m_preferencesAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Comma));
  m_preferencesAction->setMenuRole(QAction::PreferencesRole);
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Q));
  quit->setMenuRole(QAction::QuitRole);

  QMenu* model = menuBar()->addMenu(tr("&Model"));
  m_captureAction = model->addAction(tr("&Capture…"), this, &MainWindow::showCaptureDialog);
  m_captureAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
  m_captureAction->setStatusTip(
      tr("Run the selected model over a corpus and store every layer's hidden states"));
  m_projectDock->addEntryAction(ProjectCategory::Models, m_captureAction);
  createVerifyAction(model);
  updateActions();

  createGeometryMenu();
  createTrainingMenu();
  createBridgeMenu();

  createViewMenu();

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  m_aboutAction = help->addAction(tr("&About Strata"), this, &MainWindow::showAbout);
  m_aboutAction->setMenuRole(QAction::AboutRole);
}

void MainWindow::createViewMenu() {
  QMenu* view = menuBar()->addMenu(tr("&View"));
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
    QAction* action =
        m_recentMenu->addAction(QFileInfo(path).fileName(), this, [this, path] { openPath(path); });
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

void MainWindow::createStatusBar() {
  m_deviceLabel->setText(deviceLine());
  m_deviceLabel->setToolTip(tr("Device background jobs run on"));
  m_jobProgress->hide();
  statusBar()->addPermanentWidget(m_jobProgress);
  statusBar()->addPermanentWidget(m_deviceLabel);
}

void MainWindow::updateCentralPage() {
  m_central->setCurrentWidget(m_tabs->count() > 0 ? static_cast<QWidget*>(m_tabs)
                                                  : m_central->widget(0));
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
  for (JobController* job : m_jobs) job->cancel();
  QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (!openablePaths(event->mimeData()).isEmpty()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  const QStringList paths = openablePaths(event->mimeData());
  if (paths.isEmpty()) return;
  event->acceptProposedAction();
  for (const QString& path : paths) openPath(path);
}

void MainWindow::setErrorReporter(ErrorReporter reporter) { m_errorReporter = std::move(reporter); }

void MainWindow::openPath(const QString& path) {
  const QFileInfo info(path);
  if (info.isDir() && isRunFolder(toFsPath(path))) {
    showRunInTrainingView(info.absoluteFilePath());  // followed live while it trains
  } else if (info.isDir()) {
    openModelFolder(path);
  } else if (isStoreFile(info)) {
    openActivationStore(path);
  } else {
    const QString problem = info.exists()
                                ? tr("not a model folder, a training run or an activation store (.h5)")
                                          : tr("no such file or folder");
    failOpen(path, tr("Could not open “%1”.").arg(info.fileName()),
             path + QStringLiteral(": ") + problem);
  }
}

}  // namespace strata
