// Desktop polish: the Preferences dialog and where its values live, the theme they apply, the
// About dialog's versions, the keyboard shortcuts of the main actions, window state kept
// across sessions, and error dialogs whose details can be copied.

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDockWidget>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QWindow>

#include "about_dialog.h"
#include "capture_dialog.h"
#include "engine/device_info.h"
#include "engine/versions.h"
#include "error_dialog.h"
#include "features/default_geometry/default_geometry_feature.h"
#include "features/preferences/preferences_feature.h"
#include "gui_settings.h"
#include "log_dock.h"
#include "main_window.h"
#include "preferences.h"
#include "project_dock.h"
#include "theme.h"
#include "throw_away_settings.h"

using namespace strata;

namespace {

constexpr int kTimeoutMs = 30000;

/** Every action reachable from the menu bar, submenus included, by its text without '&'. */
QMap<QString, QAction*> menuActions(QMenuBar* bar) {
  QMap<QString, QAction*> actions;
  std::function<void(QMenu*)> walk = [&](QMenu* menu) {
    for (QAction* action : menu->actions()) {
      if (action->isSeparator()) continue;
      if (action->menu()) {
        walk(action->menu());
        continue;
      }
      actions.insert(action->text().remove(QLatin1Char('&')), action);
    }
  };
  for (QAction* top : bar->actions())
    if (top->menu()) walk(top->menu());
  return actions;
}

/** Swallows the application's ApplicationPaletteChange (not the widgets'). */
class PaletteChangeEater final : public QObject {
 public:
  bool eventFilter(QObject* watched, QEvent* event) override {
    return watched == qApp && event->type() == QEvent::ApplicationPaletteChange;
  }
};

PreferenceValues someValues() {
  PreferenceValues v;
  v.device = QStringLiteral("cpu");
  v.threads = 3;
  v.captureTokens = 12345;
  v.anchors = 77;
  v.pluginFolders = {QStringLiteral("/opt/strata-plugins"), QStringLiteral("/srv/more-plugins")};
  v.theme = ThemeChoice::Dark;
  return v;
}

}  // namespace

class DesktopTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    test::useThrowAwaySettings(m_dir);
  }

  void init() { guiSettings().clear(); }

  void cleanup() {
    applyTheme(ThemeChoice::System);
    engine::setComputeThreads(engine::defaultThreadCount());
  }

  void preferencesDialogShowsAndReturnsItsValues() {
    PreferencesDialog dialog;
    QCOMPARE(dialog.values(), PreferenceValues{});  // opens on the defaults
    dialog.setValues(someValues());
    QCOMPARE(dialog.deviceBox()->currentData().toString(), QStringLiteral("cpu"));
    QCOMPARE(dialog.threadsBox()->value(), 3);
    QCOMPARE(dialog.pluginFolderList()->count(), 2);
    QCOMPARE(dialog.values(), someValues());

    dialog.addPluginFolder(QStringLiteral("/opt/strata-plugins"));  // already listed: once
    QCOMPARE(dialog.pluginFolderList()->count(), 2);
    dialog.pluginFolderList()->setCurrentRow(0);
    QTest::mouseClick(dialog.removePluginFolderButton(), Qt::LeftButton);
    QCOMPARE(dialog.values().pluginFolders, QStringList{QStringLiteral("/srv/more-plugins")});
  }

  void preferencesAreSavedAndRestored() {
    QCOMPARE(loadPreferences(), PreferenceValues{});  // nothing saved yet: the defaults
    savePreferences(someValues());
    QCOMPARE(loadPreferences(), someValues());
    QCOMPARE(pluginFolders(), someValues().pluginFolders);  // what the plugin loader reads
    QCOMPARE(guiSettings().value("preferences/theme").toString(), QStringLiteral("dark"));
  }

  void captureDialogStartsFromThePreferredTokenCount() {
    PreferenceValues values;
    values.captureTokens = 4321;
    savePreferences(values);
    CaptureDialog dialog(m_dir.path());
    dialog.restoreSettings(guiSettings());
    QCOMPARE(dialog.tokensBox()->value(), 4321);
  }

  void preferencesThroughTheWindowAreSavedAndApplied() {
    MainWindow window;
    QVERIFY(!isDark(QApplication::palette()));  // offscreen's platform palette is light
    window.feature<PreferencesFeature>()->preferencesAction()->trigger();
    auto* dialog = window.findChild<PreferencesDialog*>();
    QVERIFY(dialog);
    QTRY_VERIFY(dialog->isVisible());
    dialog->themeBox()->setCurrentIndex(dialog->themeBox()->findData(QStringLiteral("dark")));
    dialog->threadsBox()->setValue(1);
    dialog->accept();

    QCOMPARE(loadPreferences().theme, ThemeChoice::Dark);
    QCOMPARE(loadPreferences().threads, 1);
    QCOMPARE(currentTheme(), ThemeChoice::Dark);
    QVERIFY(isDark(QApplication::palette()));
    QTRY_VERIFY(isDark(window.palette()));  // widgets follow on the palette-change event
    QCOMPARE(engine::currentComputeDevice().threads, 1);

    applyTheme(ThemeChoice::Light);
    QVERIFY(!isDark(QApplication::palette()));
    applyTheme(ThemeChoice::System);  // back to the platform's look
    QVERIFY(!isDark(QApplication::palette()));
  }

  void systemIsThePlatformPaletteAsItIsNow() {
    applyTheme(ThemeChoice::Dark);
    applyTheme(ThemeChoice::System);
    QVERIFY(!isDark(QApplication::palette()));  // offscreen's platform palette is light
    QVERIFY(!systemLooksDark());
  }

  void systemIsReappliedOnAnApplicationPaletteChange() {
    applyTheme(ThemeChoice::System);
    QApplication::setPalette(darkPalette());  // not Strata's doing: System applies again
    QTRY_VERIFY(!isDark(QApplication::palette()));
    applyTheme(ThemeChoice::Light);  // a chosen theme is left alone
    QApplication::setPalette(darkPalette());
    QTest::qWait(50);
    QVERIFY(isDark(QApplication::palette()));
  }

  void systemIsReappliedOnAPlatformThemeChange() {
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    applyTheme(ThemeChoice::System);
    {
      // A dark palette the follower does not hear about (its ApplicationPaletteChange eaten)...
      PaletteChangeEater eater;
      qApp->installEventFilter(&eater);
      QApplication::setPalette(darkPalette());
      qApp->removeEventFilter(&eater);
    }
    QTest::qWait(50);
    QVERIFY(isDark(QApplication::palette()));
    // ...until the platform reports a theme change to the window.
    QEvent themeChange(QEvent::ThemeChange);
    QCoreApplication::sendEvent(window.windowHandle(), &themeChange);
    QTRY_VERIFY(!isDark(QApplication::palette()));
  }

  void aboutDialogNamesQtLibTorchCudaAndTheBlas() {
    MainWindow window;
    window.feature<PreferencesFeature>()->aboutAction()->trigger();
    auto* about = window.findChild<AboutDialog*>();
    QVERIFY(about);
    const QString text = about->text();
    qInfo("%s", qPrintable(text));
    const engine::LibraryVersions versions = engine::libraryVersions();
    QVERIFY2(text.contains(QStringLiteral("Qt %1").arg(qVersion())), qPrintable(text));
    QVERIFY(!versions.libtorch.empty());
    QVERIFY2(text.contains(QStringLiteral("LibTorch %1").arg(versions.libtorch.c_str())),
             qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("\nCUDA ")), qPrintable(text));
    QVERIFY(!versions.cuda.empty());  // "none" without CUDA, else runtime and driver
    QVERIFY2(text.contains(QStringLiteral("\nBLAS ")), qPrintable(text));
    // strata_core links libblas.so.3: the process resolved sgemm_ to a real file.
    QVERIFY2(versions.blas != "unknown" && versions.blas.find("libblas") != std::string::npos,
             versions.blas.c_str());

    QApplication::clipboard()->clear();
    QTest::mouseClick(about->copyButton(), Qt::LeftButton);
    QCOMPARE(QApplication::clipboard()->text(), text);
    QVERIFY(about->isVisible());  // copying does not close it
  }

  void mainActionsHaveDistinctShortcuts() {
    MainWindow window;
    const QMap<QString, QAction*> actions = menuActions(window.menuBar());
    const QStringList main = {"Model Folder…",
                              "Open Activation Store…",
                              "Open Default Model",
                              "Preferences…",
                              "Quit",
                              "Capture…",
                              "Verify against Transformers",
                              "Score Layers…",
                              "Start Training…",
                              "Training Runs",
                              "Chunk Routing…",
                              "Alignment…",
                              "Bridge Tab",
                              "Bridgeability Sweep…",
                              "Generate…",
                              "Close Tab",
                              "Next Tab",
                              "Previous Tab",
                              "Full Screen"};
    for (const QString& name : main) {
      QVERIFY2(actions.contains(name), qPrintable("no menu action " + name));
      QVERIFY2(!actions[name]->shortcut().isEmpty(), qPrintable(name + " has no shortcut"));
    }
    QMap<QString, QString> owner;  // shortcut → action
    for (auto it = actions.begin(); it != actions.end(); ++it) {
      const QString keys = it.value()->shortcut().toString();
      if (keys.isEmpty()) continue;
      QVERIFY2(!owner.contains(keys),
               qPrintable(keys + " is used by " + owner.value(keys) + " and " + it.key()));
      owner.insert(keys, it.key());
    }
    QCOMPARE(window.feature<PreferencesFeature>()->preferencesAction()->shortcut(),
             QKeySequence(Qt::CTRL | Qt::Key_Comma));
  }

  void openDefaultModelOpensTheBuiltInModel() {
    MainWindow window;
    QVERIFY(window.feature<DefaultGeometryFeature>()->openDefaultModelAction()->isEnabled());
    QSignalSpy opened(&window.events(), &WorkbenchEvents::pathOpened);
    window.feature<DefaultGeometryFeature>()->openDefaultModelAction()->trigger();
    // The model folder and, once its geometry is ready, the activation store are opened by two
    // jobs; a cached geometry can finish first, so the order of the two signals is not fixed.
    const auto modelOpenings = [&opened] {
      int count = 0;
      for (const QList<QVariant>& signal : opened)
        count += signal.at(0).toString().endsWith(QStringLiteral("resources/models/default"));
      return count;
    };
    QTRY_COMPARE_WITH_TIMEOUT(modelOpenings(), 1, kTimeoutMs);
    QCOMPARE(window.projectDock()->entries(ProjectCategory::Models).size(), 1);
  }

  void windowStateIsRestoredInTheNextSession() {
    {
      MainWindow first;
      first.show();
      QVERIFY(QTest::qWaitForWindowExposed(&first));
      first.logDock()->hide();
      first.close();  // saves geometry and dock state
    }
    MainWindow second;
    second.show();
    QVERIFY(QTest::qWaitForWindowExposed(&second));
    QVERIFY(second.logDock()->isHidden());
    QVERIFY(!second.projectDock()->isHidden());
  }

  void errorDialogCopiesItsDetailsAndStaysOpen() {
    QWidget parent;
    const ErrorReport report{"Could not open the model folder “x”.", "/m/x/config.json: bad",
                             "Path: /m/x\nfull"};
    QMessageBox* box = showErrorDialog(&parent, report);
    auto* copy = box->findChild<QPushButton*>(QStringLiteral("copyDetails"));
    QVERIFY(copy);
    QCOMPARE(copy->text(), QStringLiteral("Copy Details"));
    QApplication::clipboard()->clear();
    QTest::mouseClick(copy, Qt::LeftButton);
    const QString copied = QApplication::clipboard()->text();
    QVERIFY2(copied.contains(report.summary) && copied.contains(report.error) &&
                 copied.contains(report.details),
             qPrintable(copied));
    QVERIFY(box->isVisible());  // still open: the user may want to read on
    QPointer<QMessageBox> guard(box);
    QTest::keyClick(box, Qt::Key_Escape);  // Esc still closes it
    QTRY_VERIFY(guard.isNull());
  }

 private:
  QTemporaryDir m_dir;
};

QTEST_MAIN(DesktopTest)
#include "desktop_test.moc"
