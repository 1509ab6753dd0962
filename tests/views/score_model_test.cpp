// Geometry ▸ Score Layers… on a model (issue 41, review defect 4): with a model selected it
// offers the capture first — the model filled in, a corpus among the recent and built-in ones,
// tokens, sequence length and a live time and memory estimate whose refusal disables OK — and
// OK captures and scores in one job that ends on the model's Layer Geometry. With a store
// selected it opens the scoring form as before; a model's tab (a dropped .gguf's too) has the
// same button.

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

#include "capture_dialog.h"
#include "display_text.h"
#include "error_dialog.h"
#include "features/capture/capture_feature.h"
#include "features/geometry/geometry_feature.h"
#include "features/open/open_feature.h"
#include "geometry/geometry_report.h"
#include "io/hf/model_folder.h"
#include "layer_geometry_view.h"
#include "log_dock.h"
#include "main_window.h"
#include "model_summary_view.h"
#include "project_dock.h"
#include "runnable_model_fixture.h"
#include "score_layers_dialog.h"
#include "throw_away_settings.h"
#include "window_sizes.h"

using namespace strata;

namespace {
constexpr int kTimeoutMs = 30000;  // a failing QTRY waits 3× this: stay under CTest's 120 s
}

class ScoreModelTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(m_root.isValid());
    test::useThrowAwaySettings(m_root);
    qputenv("STRATA_DATA_DIR", QFile::encodeName(m_root.filePath("data")));  // proposed stores
    qunsetenv("STRATA_MEMORY_AVAILABLE");
    m_model = m_root.filePath("runnable-llama");
    test::writeRunnableLlamaFolder(m_model);
    m_corpus = m_root.filePath("words.txt");
    test::writeWordCorpus(m_corpus);
    // The default model's corpus is a built-in one: here, the test's.
    qputenv("STRATA_DEFAULT_CORPUS", QFile::encodeName(m_corpus));
  }

  void scoreLayersOnASelectedModelOffersTheCaptureFirst() {
    MainWindow window(MainWindow::Options{.persistSettings = false});
    window.show();
    QAction* score = window.feature<GeometryFeature>()->scoreLayersAction();
    QVERIFY(!score->isEnabled());
    openModel(window);
    QVERIFY(score->isEnabled());  // a model alone is enough now

    score->trigger();
    auto* dialog = window.findChild<CaptureDialog*>();
    QVERIFY(dialog);
    QTRY_VERIFY(dialog->isVisible());
    QVERIFY(dialog->findChild<QLabel*>("model")->text().contains("runnable-llama"));
    QCOMPARE(dialog->windowTitle(), QStringLiteral("Score Layers — Capture First"));
    QCOMPARE(dialog->okButton()->text(), QStringLiteral("Capture and Score"));
    QVERIFY(!dialog->findChild<QLabel*>("then")->isHidden());
    QVERIFY(dialog->findChild<QLabel*>("then")->text().contains("score every layer"));
    // A corpus is proposed (the built-in one here), so OK is one click away.
    QCOMPARE(dialog->corpusEdit()->text(), m_corpus);
    QVERIFY(dialog->corpusBox()->findData(m_corpus) >= 0);
    QVERIFY(dialog->okButton()->isEnabled());
    QVERIFY(dialog->outputEdit()->text().startsWith(CaptureDialog::storesFolder()));
    QVERIFY(dialog->tokensBox()->isVisibleTo(dialog));
    QVERIFY(dialog->sequenceLengthBox()->isVisibleTo(dialog));
    const QString estimate = dialog->estimateLabel()->text();
    QVERIFY2(estimate.contains("to capture") && estimate.contains("to score") &&
                 estimate.contains("Memory:") && estimate.contains("estimated"),
             qPrintable(estimate));
    dialog->reject();
  }

  void theModelSelectedOverAStoreIsCapturedAndAStoreSelectedIsScored() {
    // The review's case: a store open, then another model selected in the dock.
    MainWindow window(MainWindow::Options{.persistSettings = false});
    window.show();
    openModel(window);
    const QString store = m_root.filePath("first.h5");
    QSignalSpy captured(window.feature<CaptureFeature>(), &CaptureFeature::captureFinished);
    window.feature<CaptureFeature>()->startCapture(smallCapture(store));
    QTRY_VERIFY_WITH_TIMEOUT(
        window.projectDock()->entries(ProjectCategory::ActivationStores).contains(store),
        kTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(!window.busy(), kTimeoutMs);

    selectEntry(window, ProjectCategory::Models, 0);
    QCOMPARE(window.feature<GeometryFeature>()->modelToScore(), m_model);
    window.feature<GeometryFeature>()->scoreLayersAction()->trigger();
    auto* capture = window.findChild<CaptureDialog*>();
    QVERIFY(capture);
    // The corpus just captured comes first among the offered ones.
    QCOMPARE(capture->corpusBox()->itemData(0).toString(), m_corpus);
    capture->reject();
    QTRY_VERIFY(!window.findChild<CaptureDialog*>());

    selectEntry(window, ProjectCategory::ActivationStores, 0);
    QVERIFY(window.feature<GeometryFeature>()->modelToScore().isEmpty());
    window.feature<GeometryFeature>()->scoreLayersAction()->trigger();
    QVERIFY(!window.findChild<CaptureDialog*>());
    auto* scoring = window.findChild<ScoreLayersDialog*>();
    QVERIFY(scoring);
    QCOMPARE(scoring->findChild<QLabel*>("store")->toolTip(), store);
    scoring->reject();
  }

  void theEstimateFollowsTheTokens() {
    CaptureDialog dialog(m_model);
    dialog.setCorpus(m_corpus);
    dialog.setFollowUp(QStringLiteral("score every layer"), true);
    QVERIFY(dialog.estimateLabel()->isHidden());  // no model shape yet
    dialog.setModel(summary(), false);
    QVERIFY(!dialog.estimateLabel()->isHidden());
    dialog.tokensBox()->setValue(1000);
    const QString small = dialog.estimateLabel()->text();
    dialog.tokensBox()->setValue(100'000'000);
    const QString large = dialog.estimateLabel()->text();
    QVERIFY2(small.contains("under a second to capture"), qPrintable(small));
    QVERIFY2(!large.contains("under a second to capture"), qPrintable(large));
    dialog.sequenceLengthBox()->setValue(16);
    QVERIFY(dialog.estimateLabel()->text() != large);  // more, shorter sequences
  }

  void aPlanThatDoesNotFitDisablesOkWithTheReason() {
    CaptureDialog dialog(m_model);
    dialog.setCorpus(m_corpus);
    dialog.setModel(summary(), false);
    QVERIFY(dialog.okButton()->isEnabled());
    qputenv("STRATA_MEMORY_AVAILABLE", "1M");
    dialog.tokensBox()->setValue(dialog.tokensBox()->value() + 1);  // the estimate is redone
    qunsetenv("STRATA_MEMORY_AVAILABLE");
    QVERIFY(!dialog.okButton()->isEnabled());
    QVERIFY2(
        dialog.problem().contains("Not enough memory") && dialog.problem().contains("available"),
        qPrintable(dialog.problem()));
    QVERIFY2(dialog.estimateLabel()->text().contains("does not fit"),
             qPrintable(dialog.estimateLabel()->text()));
    dialog.tokensBox()->setValue(dialog.tokensBox()->value() - 1);
    QVERIFY(dialog.okButton()->isEnabled());
    QVERIFY(dialog.problem().isEmpty());
  }

  void capturingAndScoringEndsOnTheModelsLayerGeometry() {
    MainWindow window(MainWindow::Options{.persistSettings = false});
    QList<ErrorReport> errors;
    window.setErrorReporter([&errors](const ErrorReport& report) { errors << report; });
    window.show();
    openModel(window);
    window.feature<GeometryFeature>()->scoreLayersAction()->trigger();
    auto* dialog = window.findChild<CaptureDialog*>();
    QVERIFY(dialog);
    const QString store = m_root.filePath("scored.h5");
    dialog->setCorpus(m_corpus);
    dialog->setOutput(store);
    dialog->tokensBox()->setValue(200);
    dialog->sequenceLengthBox()->setValue(16);
    QSignalSpy shown(&window.events(), &WorkbenchEvents::geometryShown);
    QVERIFY(dialog->okButton()->isEnabled());
    dialog->okButton()->click();
    QVERIFY(window.busy());  // one job: capture, then scoring
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 3 * kTimeoutMs);
    QVERIFY2(errors.isEmpty(), qPrintable(errors.isEmpty() ? QString() : errors.first().error));
    QCOMPARE(shown.first().at(0).toString(), store);

    auto* view = qobject_cast<LayerGeometryView*>(window.tabs()->currentWidget());
    QVERIFY(view);
    QCOMPARE(view->storeFile(), store);
    QCOMPARE(view->report().layers.size(), 3u);  // h_0, h_1, h_2 of the 2-layer model
    QVERIFY2(QString::fromStdString(view->report().modelId).contains("runnable-llama"),
             view->report().modelId.c_str());
    const auto stored = geometry::readGeometry(toFsPath(store));
    QVERIFY(stored.has_value());
    const QString log = window.logDock()->text();
    QVERIFY2(log.contains("Captured 200 tokens") && log.contains("Scored 3 layers"),
             qPrintable(log));
    QTRY_VERIFY_WITH_TIMEOUT(!window.busy(), kTimeoutMs);
  }

  void aModelsTabOffersScoreLayers_data() { testing::addWindowSizeRows(); }
  void aModelsTabOffersScoreLayers() {
    QFETCH(bool, maximised);
    QFETCH(QSize, size);
    MainWindow window(MainWindow::Options{.persistSettings = false});
    if (const QString skip = testing::showForRow(window, maximised); !skip.isEmpty())
      QSKIP(qPrintable(skip));
    if (!size.isEmpty()) window.resize(size);
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    // What a drop on the window does with a model folder or a .gguf.
    QSignalSpy opened(&window.events(), &WorkbenchEvents::pathOpened);
    window.service<OpenService>().openPath(m_model);
    QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, kTimeoutMs);
    auto* tab = qobject_cast<ModelSummaryView*>(window.tabs()->currentWidget());
    QVERIFY(tab);
    QPushButton* button = tab->scoreLayersButton();
    QTRY_VERIFY(button->isVisible());
    // Whole inside the tab, without scrolling.
    const QRect inTab(button->mapTo(tab, QPoint(0, 0)), button->size());
    QVERIFY2(tab->rect().contains(inTab), qPrintable(QStringLiteral("%1,%2 %3×%4 in %5×%6")
                                                         .arg(inTab.x())
                                                         .arg(inTab.y())
                                                         .arg(inTab.width())
                                                         .arg(inTab.height())
                                                         .arg(tab->width())
                                                         .arg(tab->height())));

    button->click();
    auto* dialog = window.findChild<CaptureDialog*>();
    QVERIFY(dialog);
    QTRY_VERIFY(dialog->isVisible());
    QVERIFY(dialog->findChild<QLabel*>("model")->text().contains("runnable-llama"));
    QVERIFY(!dialog->findChild<QLabel*>("then")->isHidden());
    // The dialog fits the window whole.
    const QSize hint = dialog->sizeHint();
    QVERIFY2(hint.height() <= window.height() && hint.width() <= window.width(),
             qPrintable(QStringLiteral("%1×%2 in %3×%4")
                            .arg(hint.width())
                            .arg(hint.height())
                            .arg(window.width())
                            .arg(window.height())));
    dialog->reject();
  }

 private:
  void openModel(MainWindow& window) {
    QSignalSpy opened(&window.events(), &WorkbenchEvents::pathOpened);
    window.feature<OpenFeature>()->openModelFolder(m_model);
    QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, kTimeoutMs);
  }

  static void selectEntry(MainWindow& window, ProjectCategory category, int row) {
    QTreeWidget* tree = window.projectDock()->tree();
    tree->setCurrentItem(tree->topLevelItem(static_cast<int>(category))->child(row));
  }

  std::shared_ptr<const io::ModelSummary> summary() const {
    return std::make_shared<const io::ModelSummary>(io::inspectModelFolder(toFsPath(m_model)));
  }

  engine::CaptureConfig smallCapture(const QString& output) const {
    return test::smallCapture(m_model, m_corpus, output);
  }

  QTemporaryDir m_root;
  QString m_model;
  QString m_corpus;
};

QTEST_MAIN(ScoreModelTest)
#include "score_model_test.moc"
