// Screenshots of every main view with real data, rendered offscreen: the workbench with the
// built-in default model open, the Layer Geometry tab of an activation store captured from that
// model and scored, a layer's detail tab, the Training tab following a real (tiny) run, the
// Bridge tab with a tiny bridge at l*, the Chunk Routing tab of a tiny dcdm run and the
// Alignment tab of a tiny repr_align run of the default model; for docs/desktop.md's first ten
// minutes also the Capture and Start Training dialogs and the landing of File ▸ Open Default
// Model on the real default corpus. Each PNG goes to
// STRATA_SCREENSHOT_DIR (<build>/screenshots); README's images are copied from there. Each
// test asserts the picture is not trivial: full size and many distinct colours.

#include <qcustomplot.h>

#include <QDir>
#include <QImage>
#include <QSet>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include "alignment_view.h"
#include "bridge_fixture.h"
#include "bridge_view.h"
#include "capture_dialog.h"
#include "chunk_routing_view.h"
#include "common/job.h"
#include "engine/recipe_catalog.h"
#include "engine/training_run.h"
#include "features/alignment/alignment_feature.h"
#include "features/bridge/bridge_feature.h"
#include "features/capture/capture_feature.h"
#include "features/default_geometry/default_geometry_feature.h"
#include "features/geometry/geometry_feature.h"
#include "features/open/open_feature.h"
#include "features/routing/routing_feature.h"
#include "features/training/training_feature.h"
#include "layer_detail_view.h"
#include "layer_geometry_view.h"
#include "main_window.h"
#include "runs_table.h"
#include "throw_away_settings.h"
#include "training_launch_dialog.h"
#include "training_view.h"

using namespace strata;

namespace {

constexpr int kTimeoutMs = 120000;
const QSize kWindowSize(1280, 800);

std::filesystem::path fsPath(const QString& path) {
  return std::filesystem::path(QFile::encodeName(path).toStdString());
}

/** Distinct colours on a 64×64 grid of sample points: a blank or single-colour window has
 *  one or two; a window showing plots, tables and text has dozens. */
int distinctColours(const QImage& image) {
  QSet<QRgb> colours;
  for (int y = 0; y < 64; ++y)
    for (int x = 0; x < 64; ++x)
      colours.insert(image.pixel(x * image.width() / 64, y * image.height() / 64));
  return static_cast<int>(colours.size());
}

/** A 60-step dcdm run (dim 32, 1 layer, 4 chunks, 64-token windows: Chunk Routing's text is
 *  routed whole) on `corpus`, in `run`. */
void trainTinyDcdm(const QString& run, const QString& corpus) {
  engine::ResolvedConfig c(engine::recipeSchema("dcdm"));
  c.set("corpus", corpus.toStdString());
  c.set("variant", std::string("dcdm"));
  for (const auto& [key, value] : std::map<std::string, int64_t>{{"steps", 60},
                                                                 {"batch", 4},
                                                                 {"seq_len", 64},
                                                                 {"dim", 32},
                                                                 {"layers", 1},
                                                                 {"heads", 2},
                                                                 {"mlp", 64},
                                                                 {"chunks", 4},
                                                                 {"subspace_rank", 2},
                                                                 {"checkpoint_every", 30},
                                                                 {"eval_every", 20},
                                                                 {"log_every", 1},
                                                                 {"threads", 1}})
    c.set(key, value);
  NullProgressSink sink;
  JobContext job(sink, CancellationToken());
  engine::TrainingRequest request;
  request.recipe = "dcdm";
  request.config = c;
  request.runFolder = fsPath(run);
  engine::startTraining(request, job);
}

/** A 24-step repr_align run of the default model (λ = 10, every layer aligned) in `run`. */
void trainTinyReprAlign(const QString& run, const QString& corpus) {
  engine::ResolvedConfig c(engine::recipeSchema("repr_align"));
  c.set("model", test::defaultModelFolder().toStdString());
  c.set("corpus", corpus.toStdString());
  for (const auto& [key, value] : std::map<std::string, int64_t>{{"steps", 24},
                                                                 {"batch", 4},
                                                                 {"seq_len", 32},
                                                                 {"warmup", 2},
                                                                 {"log_every", 1},
                                                                 {"eval_every", 12},
                                                                 {"checkpoint_every", 12},
                                                                 {"eval_windows", 4},
                                                                 {"sample_steps", 4},
                                                                 {"threads", 1}})
    c.set(key, value);
  c.set("lambda", 10.0);
  NullProgressSink sink;
  JobContext job(sink, CancellationToken());
  engine::TrainingRequest request;
  request.recipe = "repr_align";
  request.config = c;
  request.runFolder = fsPath(run);
  engine::startTraining(request, job);
}

}  // namespace

class ScreenshotTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    test::useThrowAwaySettings(m_dir);
    QVERIFY(QDir().mkpath(QStringLiteral(STRATA_SCREENSHOT_DIR)));
    m_corpus = m_dir.filePath("code.txt");
    m_store = m_dir.filePath("default-acts.h5");
    m_runs = m_dir.filePath("runs");
    QVERIFY(QDir().mkpath(m_runs));
    test::writeCodeCorpus(m_corpus);
    // Scored as the workbench does with this tree's plugins on (twonn_id, cka_prev), with
    // bootstrap intervals: the Layer Geometry tab with all its panels and columns.
    test::writeScoredStore(m_store, m_corpus, 1024,
                           {.bootstrapResamples = 8, .pluginMetrics = true});
    test::trainTinyBridge(m_runs + "/bridge-l2", m_corpus, 2);
    trainTinyDcdm(m_runs + "/dcdm", m_corpus);
    trainTinyReprAlign(m_runs + "/repr-align", m_corpus);

    m_window = std::make_unique<MainWindow>(MainWindow::Options{.persistSettings = false});
    m_window->setErrorReporter(
        [](const ErrorReport& report) { QFAIL(qPrintable(report.summary + " " + report.error)); });
    m_window->setRunsRoot(m_runs);
    m_window->resize(kWindowSize);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
  }

  void cleanupTestCase() { m_window.reset(); }

  void workbenchWithTheDefaultModel() {
    QSignalSpy opened(&m_window->events(), &WorkbenchEvents::pathOpened);
    m_window->feature<OpenFeature>()->openModelFolder(test::defaultModelFolder());
    QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, kTimeoutMs);
    save("workbench-default-model");
  }

  /** Model ▸ Capture… on the default model, as a newcomer first sees it. */
  void captureDialog() {
    m_window->feature<CaptureFeature>()->showCaptureDialog();
    saveDialog<CaptureDialog>("capture-dialog");
  }

  /** Training ▸ Start Training…, the recipe list and its settings. */
  void trainingLaunchDialog() {
    m_window->feature<TrainingFeature>()->showTrainingLaunchDialog();
    saveDialog<TrainingLaunchDialog>("training-launch");
  }

  void layerGeometry() {
    QSignalSpy shown(&m_window->events(), &WorkbenchEvents::geometryShown);
    m_window->feature<OpenFeature>()->openActivationStore(m_store);
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() >= 1, kTimeoutMs);  // its stored /geometry
    QTRY_VERIFY(!m_window->busy());
    save("layer-geometry");
  }

  void layerDetail() {
    QSignalSpy shown(m_window->feature<GeometryFeature>(), &GeometryFeature::layerDetailShown);
    m_window->feature<GeometryFeature>()->showLayerDetail(QDir::cleanPath(m_store), 2);
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, kTimeoutMs);
    QTRY_VERIFY(!m_window->busy());
    // A token selected in the scatter, its context in the strip (the "=" of "total = …").
    LayerDetailView* view =
        m_window->feature<GeometryFeature>()->layerDetailView(QDir::cleanPath(m_store), 2);
    QVERIFY(view);
    const engine::LayerDetail& detail = view->detail();
    int64_t row = static_cast<int64_t>(detail.tokenIds.size() / 2);
    for (std::size_t r = 0; r < detail.tokenTexts.size(); ++r)
      if (detail.tokenTexts[r].find('=') != std::string::npos && detail.positions[r] >= 8) {
        row = static_cast<int64_t>(r);
        break;
      }
    view->selectToken(row);
    save("layer-detail");
  }

  void trainingTab() {
    m_window->feature<TrainingFeature>()->showTrainingView();
    TrainingView* view = m_window->feature<TrainingFeature>()->trainingView();
    QVERIFY(view);
    QSignalSpy arrived(view, &TrainingView::recordsArrived);
    view->showRun(m_runs + "/dcdm");
    QTRY_VERIFY_WITH_TIMEOUT(arrived.count() >= 1, kTimeoutMs);
    QTRY_VERIFY(view->runsTable()->rowCount() > 0 && !view->runsTable()->refreshing());
    save("training");
  }

  void bridgeTab() {
    m_window->feature<BridgeFeature>()->showBridgeView();
    QVERIFY(m_window->feature<BridgeFeature>()->bridgeView());
    QTRY_VERIFY(!m_window->busy());  // l* read from the store
    m_window->feature<BridgeFeature>()->bridgeView()->showRun(m_runs + "/bridge-l2");
    QTest::qWait(800);  // the run's metrics are replayed on the view's timer
    save("bridge");
  }

  void chunkRouting() {
    m_window->feature<RoutingFeature>()->showChunkRouting(m_runs + "/dcdm");
    ChunkRoutingView* view =
        m_window->feature<RoutingFeature>()->chunkRoutingView(m_runs + "/dcdm");
    QVERIFY(view);
    QSignalSpy routed(view, &ChunkRoutingView::routed);
    view->setText(QStringLiteral("def add_3(x, y):\n    total = x + y * 3\n    return total\n"));
    QTRY_VERIFY_WITH_TIMEOUT(routed.count() >= 1, kTimeoutMs);
    save("chunk-routing");
  }

  void alignment() {
    m_window->feature<AlignmentFeature>()->showAlignment(m_runs + "/repr-align");
    AlignmentView* view =
        m_window->feature<AlignmentFeature>()->alignmentView(m_runs + "/repr-align");
    QVERIFY(view);
    // One graph per layer once the run's metrics are read (at once or on the view's timer).
    QTRY_VERIFY_WITH_TIMEOUT(view->curvesPlot()->graphCount() > 0, kTimeoutMs);
    save("alignment");
  }

  /** File ▸ Open Default Model in a new window and a fresh data folder: captured from the real
   * default corpus, scored, and landed on the model's Layer Geometry (what scripts/run-default.sh
   * shows). */
  void firstRun() {
    qputenv("STRATA_DATA_DIR", m_dir.filePath("user-data").toUtf8());
    m_window = std::make_unique<MainWindow>(MainWindow::Options{.persistSettings = false});
    m_window->setErrorReporter(
        [](const ErrorReport& report) { QFAIL(qPrintable(report.summary + " " + report.error)); });
    m_window->resize(kWindowSize);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    QSignalSpy finished(m_window->feature<DefaultGeometryFeature>(),
                        &DefaultGeometryFeature::defaultGeometryFinished);
    QSignalSpy shown(&m_window->events(), &WorkbenchEvents::geometryShown);
    m_window->feature<DefaultGeometryFeature>()->openDefaultModel();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeoutMs);
    QCOMPARE(finished.at(0).at(0).value<JobOutcome>(), JobOutcome::Succeeded);
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() >= 1, kTimeoutMs);  // the cached store's /geometry
    QVERIFY2(qobject_cast<LayerGeometryView*>(m_window->tabs()->currentWidget()),
             "File ▸ Open Default Model did not land on the Layer Geometry");
    QTRY_VERIFY(!m_window->busy());
    save("first-run");
  }

 private:
  /** Grabs the whole window after pending paints, checks it, writes <name>.png. */
  void save(const QString& name) {
    QTest::qWait(300);  // queued replots and layouts settle
    const QImage image = m_window->grab().toImage();
    QVERIFY2(
        image.size() == kWindowSize,
        qPrintable(QStringLiteral("%1: %2×%3").arg(name).arg(image.width()).arg(image.height())));
    const int colours = distinctColours(image);
    QVERIFY2(colours >= 12,
             qPrintable(QStringLiteral("%1: only %2 colours").arg(name).arg(colours)));
    const QString file = QStringLiteral(STRATA_SCREENSHOT_DIR "/%1.png").arg(name);
    QVERIFY2(image.save(file, "PNG"), qPrintable("cannot write " + file));
    qInfo("wrote %s (%d colours sampled)", qPrintable(file), colours);
  }

  /** Grabs the open dialog of type D (a window-modal child of the window), writes <name>.png
   *  and closes it. */
  template <typename D>
  void saveDialog(const QString& name) {
    D* dialog = nullptr;
    QTRY_VERIFY((dialog = m_window->findChild<D*>()) && dialog->isVisible());
    QTest::qWait(300);
    const QImage image = dialog->grab().toImage();
    QVERIFY2(
        image.width() >= 300 && image.height() >= 200,
        qPrintable(QStringLiteral("%1: %2×%3").arg(name).arg(image.width()).arg(image.height())));
    const int colours = distinctColours(image);
    QVERIFY2(colours >= 6,
             qPrintable(QStringLiteral("%1: only %2 colours").arg(name).arg(colours)));
    const QString file = QStringLiteral(STRATA_SCREENSHOT_DIR "/%1.png").arg(name);
    QVERIFY2(image.save(file, "PNG"), qPrintable("cannot write " + file));
    dialog->reject();
    QTRY_VERIFY(!m_window->findChild<D*>() || !dialog->isVisible());
  }

  QTemporaryDir m_dir;
  QString m_corpus;
  QString m_store;
  QString m_runs;
  std::unique_ptr<MainWindow> m_window;
};

QTEST_MAIN(ScreenshotTest)
#include "screenshot_test.moc"
