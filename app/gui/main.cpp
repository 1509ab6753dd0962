// strata: the workbench. `strata [PATH]` opens a model folder, a training run (followed live)
// or an activation store at start;
// `strata --default` opens the built-in default model on its Layer Geometry (File ▸ Open
// Default Model); `strata --screenshot OUT.png [--default | PATH]` opens PATH (or the default),
// waits for loading to finish, saves the window as OUT.png and exits (0 on success; 1 when
// opening or saving failed).

#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>
#include <cstdio>

#include "common/build_info.h"
#include "common/runtime_tuning.h"
#include "engine/device_info.h"
#include "features/default_geometry/default_geometry_feature.h"
#include "main_window.h"
#include "preferences.h"
#include "recipes/built_in_recipes.h"
#include "services.h"

namespace {

/** Grabs the window once the event loop has painted it, then quits with the outcome. */
void saveScreenshotAndQuit(strata::MainWindow& window, const QString& file) {
  // A short pause lets the final layout and paint (status bar, tab contents) settle.
  QTimer::singleShot(300, &window, [&window, file] {
    const bool saved = window.grab().save(file, "PNG");
    if (!saved) std::fprintf(stderr, "strata: could not write %s\n", qPrintable(file));
    QCoreApplication::exit(saved ? 0 : 1);
  });
}

int runScreenshot(const QString& file, const QString& path, bool openDefault) {
  strata::MainWindow window(strata::MainWindow::Options{.persistSettings = false});
  window.resize(1100, 640);
  window.setErrorReporter([](const strata::ErrorReport& report) {
    std::fprintf(stderr, "strata: %s\n", qPrintable(report.error));
    QCoreApplication::exit(1);
  });
  QObject::connect(&window, &strata::MainWindow::jobsFinished, &window,
                   [&window, file] { saveScreenshotAndQuit(window, file); });
  window.show();
  if (openDefault)
    QTimer::singleShot(0, &window, [&window] {
      window.feature<strata::DefaultGeometryFeature>()->openDefaultModel();
    });
  else if (path.isEmpty())
    saveScreenshotAndQuit(window, file);
  else
    QTimer::singleShot(0, &window,
                       [&window, path] { window.service<strata::OpenService>().openPath(path); });
  return QApplication::exec();
}

}  // namespace

STRATA_TUNE_LIBRARIES_AT_LOAD

int main(int argc, char** argv) {
  strata::runWithTunedLibraries(argv);
  QApplication app(argc, argv);
  strata::engine::setComputeThreads(strata::engine::defaultThreadCount());
  strata::recipes::addBuiltInRecipes();
  strata::engine::reuseFreedTensorMemory();  // capture and every other forward pass run faster
  QApplication::setOrganizationName(QStringLiteral("Strata"));
  QApplication::setApplicationName(QStringLiteral("Strata"));
  QApplication::setApplicationVersion(QLatin1String(strata::build::kVersion));

  QCommandLineParser parser;
  parser.setApplicationDescription(
      QStringLiteral("Strata: layer geometry of transformer hidden states."));
  parser.addHelpOption();
  parser.addVersionOption();
  const QCommandLineOption screenshot(
      QStringLiteral("screenshot"),
      QStringLiteral("Open PATH, wait until it is loaded, save the window as <png> and exit."),
      QStringLiteral("png"));
  parser.addOption(screenshot);
  const QCommandLineOption openDefault(
      QStringLiteral("default"),
      QStringLiteral("Open the built-in default model on its layer geometry (computed once, then "
                     "cached in the user's data folder)."));
  parser.addOption(openDefault);
  parser.addPositionalArgument(QStringLiteral("path"),
                               QStringLiteral("A model folder or an activation store (.h5)."),
                               QStringLiteral("[path]"));
  parser.process(app);
  const QStringList positional = parser.positionalArguments();
  if (positional.size() > 1) {
    std::fprintf(stderr, "strata: at most one path, got %lld\n",
                 static_cast<long long>(positional.size()));
    return 2;
  }
  const QString path = positional.value(0);
  if (parser.isSet(openDefault) && !path.isEmpty()) {
    std::fprintf(stderr, "strata: --default opens the default model: give no path with it\n");
    return 2;
  }

  if (parser.isSet(screenshot))
    return runScreenshot(parser.value(screenshot), path, parser.isSet(openDefault));

  strata::applyPreferences(strata::loadPreferences());  // theme and CPU threads
  strata::MainWindow window;
  window.show();
  if (parser.isSet(openDefault))
    QTimer::singleShot(0, &window, [&window] {
      window.feature<strata::DefaultGeometryFeature>()->openDefaultModel();
    });
  else if (!path.isEmpty())
    QTimer::singleShot(0, &window,
                       [&window, path] { window.service<strata::OpenService>().openPath(path); });
  return QApplication::exec();
}
