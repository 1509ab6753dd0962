// File ▸ Open Default Model: the default model opens on its Layer Geometry, captured and scored
// in one job the first time and read from the user's cache afterwards; a failure is a dialog.

#include <QAction>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <cstdlib>
#include <fstream>

#include "display_text.h"
#include "features/geometry/default_geometry_feature.h"
#include "features/geometry/geometry_feature.h"
#include "layer_geometry_view.h"
#include "log_dock.h"
#include "main_window.h"
#include "project_dock.h"
#include "support/tiny_gguf_model.h"
#include "throw_away_settings.h"

using namespace strata;

namespace {
constexpr int kTimeoutMs = 120000;
}

class DefaultModelTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(m_root.isValid());
    test::useThrowAwaySettings(m_root);
    std::ofstream corpus(m_root.filePath("corpus.py").toStdString());
    for (int i = 0; i < 600; ++i)
      corpus << "def handler_" << i << "(event):\n    return event.get('k" << i % 17 << "')\n";
    corpus.close();
    qputenv("STRATA_DEFAULT_CORPUS", m_root.filePath("corpus.py").toUtf8());
    qputenv("STRATA_DATA_DIR", m_root.filePath("data").toUtf8());
  }

  void landsOnTheDefaultModelsLayerGeometry() {
    MainWindow window(MainWindow::Options{.persistSettings = false});
    QList<ErrorReport> errors;
    window.setErrorReporter([&errors](const ErrorReport& r) { errors << r; });
    window.show();
    QSignalSpy finished(window.feature<DefaultGeometryFeature>(),
                        &DefaultGeometryFeature::defaultGeometryFinished);
    QSignalSpy shown(&window.events(), &WorkbenchEvents::geometryShown);
    QVERIFY(window.feature<DefaultGeometryFeature>()->openDefaultModelAction()->isEnabled());
    window.feature<DefaultGeometryFeature>()->openDefaultModelAction()->trigger();
    QVERIFY(window.busy());  // capture and scoring run in the background
    QVERIFY(shown.wait(kTimeoutMs));
    QVERIFY2(errors.isEmpty(), qPrintable(errors.value(0).error));
    QCOMPARE(finished.count(), 1);
    QCOMPARE(finished.first().at(0).value<JobOutcome>(), JobOutcome::Succeeded);

    const QString store = shown.first().at(0).toString();
    QVERIFY2(store.startsWith(m_root.filePath("data/geometry-cache/default-")), qPrintable(store));
    auto* view = qobject_cast<LayerGeometryView*>(window.tabs()->currentWidget());
    QVERIFY2(view, "the current tab is not the Layer Geometry");
    QCOMPARE(view, window.feature<GeometryFeature>()->geometryView(store));
    QCOMPARE(view->report().layers.size(), std::size_t(5));
    QCOMPARE(window.projectDock()->entries(ProjectCategory::ActivationStores), QStringList{store});
    const QStringList models = window.projectDock()->entries(ProjectCategory::Models);
    QCOMPARE(models.size(), 1);
    QVERIFY(models.first().endsWith("resources/models/default"));
    QVERIFY(window.logDock()->text().contains("Captured and scored the default model"));
  }

  void laterOpeningsReadTheCache() {
    MainWindow window(MainWindow::Options{.persistSettings = false});
    window.show();
    QSignalSpy shown(&window.events(), &WorkbenchEvents::geometryShown);
    window.feature<DefaultGeometryFeature>()->openDefaultModel();
    QVERIFY(shown.wait(kTimeoutMs));
    QVERIFY(window.logDock()->text().contains("Read the default model's cached geometry"));
    QVERIFY(!window.logDock()->text().contains("Captured and scored"));
    QVERIFY(qobject_cast<LayerGeometryView*>(window.tabs()->currentWidget()));
  }

  void aGgufDefaultIsImportedAndLandsOnItsGeometry() {
    // The real default is SmolLM2's GGUF; a tiny GGUF stands in for it here (a 2-block llama
    // whose tokenizer knows a, b, c and the space), over a corpus of those letters.
    const QString gguf = m_root.filePath("tiny.gguf");
    testing::writeTinyLlamaGguf(toFsPath(gguf), 2);
    {
      std::ofstream corpus(m_root.filePath("letters.txt").toStdString());
      uint32_t state = 7;
      for (int document = 0; document < 120; ++document) {
        for (int i = 0; i < 160; ++i) {
          state = state * 1664525u + 1013904223u;
          corpus << "abc "[(state >> 16) % 4];
        }
        corpus << "a\n\n";
      }
    }
    const QByteArray savedModel = qgetenv("STRATA_DEFAULT_MODEL");
    const QByteArray savedCorpus = qgetenv("STRATA_DEFAULT_CORPUS");
    qputenv("STRATA_DEFAULT_MODEL", gguf.toUtf8());
    qputenv("STRATA_DEFAULT_CORPUS", m_root.filePath("letters.txt").toUtf8());
    MainWindow window(MainWindow::Options{.persistSettings = false});
    QList<ErrorReport> errors;
    window.setErrorReporter([&errors](const ErrorReport& r) { errors << r; });
    window.show();
    QSignalSpy shown(&window.events(), &WorkbenchEvents::geometryShown);
    window.feature<DefaultGeometryFeature>()->openDefaultModel();
    const bool ok = shown.wait(kTimeoutMs);
    qputenv("STRATA_DEFAULT_MODEL", savedModel);
    qputenv("STRATA_DEFAULT_CORPUS", savedCorpus);
    QVERIFY2(errors.isEmpty(), qPrintable(errors.value(0).error));
    QVERIFY(ok);
    auto* view = qobject_cast<LayerGeometryView*>(window.tabs()->currentWidget());
    QVERIFY2(view, "the current tab is not the Layer Geometry");
    QCOMPARE(view->report().layers.size(), std::size_t(3));  // h_0, h_1, h_2
    const QStringList models = window.projectDock()->entries(ProjectCategory::Models);
    QCOMPARE(models.size(), 1);
    QVERIFY2(models.first().startsWith(m_root.filePath("data/gguf/tiny-")),
             qPrintable(models.first()));
  }

  void aMissingCorpusIsReported() {
    const QByteArray saved = qgetenv("STRATA_DEFAULT_CORPUS");
    qputenv("STRATA_DEFAULT_CORPUS", m_root.filePath("gone.txt").toUtf8());
    MainWindow window(MainWindow::Options{.persistSettings = false});
    QList<ErrorReport> errors;
    window.setErrorReporter([&errors](const ErrorReport& r) { errors << r; });
    QSignalSpy finished(window.feature<DefaultGeometryFeature>(),
                        &DefaultGeometryFeature::defaultGeometryFinished);
    window.feature<DefaultGeometryFeature>()->openDefaultModel();
    QVERIFY(finished.wait(kTimeoutMs));
    qputenv("STRATA_DEFAULT_CORPUS", saved);
    QCOMPARE(finished.first().at(0).value<JobOutcome>(), JobOutcome::Failed);
    QCOMPARE(errors.size(), 1);
    QCOMPARE(errors.first().summary,
             QStringLiteral("Could not compute the default model's layer geometry."));
    QVERIFY2(errors.first().error.contains("gone.txt"), qPrintable(errors.first().error));
    QVERIFY(window.projectDock()->entries(ProjectCategory::ActivationStores).isEmpty());
  }

 private:
  QTemporaryDir m_root;
};

QTEST_MAIN(DefaultModelTest)
#include "default_model_test.moc"
