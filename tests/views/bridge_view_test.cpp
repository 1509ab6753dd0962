// The Bridge tab: l* pre-filled from a real scored store (the Layer Geometry tab's l* while that
// tab is open, else the store's /geometry read as the recipe reads it), a layer chosen by hand
// kept, Train Bridge… opening the launcher on recipe "bridge" with the tab's values, and a
// run's evaluations plotted from its metrics.jsonl.

#include "bridge_view.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include "bridge_fixture.h"
#include "bridge_metrics_plot.h"
#include "bridge_sweep_dialog.h"
#include "bridgeability_view.h"
#include "features/bridge/bridge_feature.h"
#include "features/geometry/geometry_feature.h"
#include "features/open/open_feature.h"
#include "features/training/training_feature.h"
#include "layer_geometry_view.h"
#include "main_window.h"
#include "recipes/bridge/bridge_layer.h"
#include "throw_away_settings.h"
#include "training_launch_dialog.h"

using namespace strata;

namespace {

constexpr int kTimeoutMs = 30000;

void writeText(const QString& file, const QByteArray& text) {
  QFile out(file);
  QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
  QCOMPARE(out.write(text), text.size());
}

}  // namespace

class BridgeViewTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(m_root.isValid());
    test::useThrowAwaySettings(m_root);
    qputenv("STRATA_RUNS_DIR", QFile::encodeName(m_root.filePath("runs")));
    m_corpus = m_root.filePath("code.txt");
    test::writeCodeCorpus(m_corpus);
    m_store = QDir::cleanPath(m_root.filePath("acts.h5"));
    test::writeScoredStore(m_store, m_corpus);
    m_best = recipes::bestLayerOfStore(std::filesystem::path(m_store.toStdString()));
    QVERIFY(m_best >= 1 && m_best <= 3);  // the default candidates 1..L−1 of a 4-layer model
  }

  void prefillsLStarFromTheOpenStoreAndLaunchesTheBridgeRecipe() {
    MainWindow window(MainWindow::Options{false});
    QStringList errors;
    window.setErrorReporter([&](const ErrorReport& report) { errors << report.error; });
    QSignalSpy shown(&window.events(), &WorkbenchEvents::geometryShown);
    window.feature<OpenFeature>()->openActivationStore(m_store);
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, kTimeoutMs);  // its /geometry is shown
    QVERIFY(window.feature<GeometryFeature>()->geometryView(m_store));

    QSignalSpy suggested(window.feature<BridgeFeature>(), &BridgeFeature::bridgeLayerSuggested);
    window.feature<BridgeFeature>()->showBridgeView();
    BridgeView* view = window.feature<BridgeFeature>()->bridgeView();
    QVERIFY(view);
    QCOMPARE(suggested.count(), 1);  // from the open Layer Geometry tab: no job needed
    QCOMPARE(view->store(), m_store);
    QCOMPARE(view->modelFolder(), test::defaultModelFolder());  // the store's own model
    QCOMPARE(view->layerBox()->value(), m_best);
    QVERIFY2(view->layerSourceLabel()->text().contains(QStringLiteral("acts.h5")),
             qPrintable(view->layerSourceLabel()->text()));
    QVERIFY(view->layerSourceLabel()->text().contains(QStringLiteral("Layer Geometry")));
    view->setCorpus(m_corpus);

    view->trainButton()->click();
    auto* dialog = window.findChild<TrainingLaunchDialog*>();
    QVERIFY(dialog);
    QCOMPARE(dialog->recipe(), QStringLiteral("bridge"));
    QCOMPARE(dialog->valueText("layer"), QString::number(m_best));
    QCOMPARE(dialog->valueText("store"), m_store);
    QCOMPARE(dialog->valueText("model"), test::defaultModelFolder());
    QCOMPARE(dialog->valueText("corpus"), m_corpus);
    QVERIFY2(dialog->okButton()->isEnabled(), qPrintable(dialog->problem()));
    dialog->reject();
    QVERIFY2(errors.isEmpty(), qPrintable(errors.join('\n')));
  }

  void readsLStarFromTheStoreWhenNoGeometryTabIsOpen() {
    MainWindow window(MainWindow::Options{false});
    window.feature<BridgeFeature>()->showBridgeView();
    BridgeView* view = window.feature<BridgeFeature>()->bridgeView();
    QVERIFY(view->layerSourceLabel()->text().contains(QStringLiteral("No activation store")));
    QCOMPARE(view->suggestedLayer(), -1);

    // Typed (or browsed) stores are read once the typing stops, in a job.
    QSignalSpy suggested(window.feature<BridgeFeature>(), &BridgeFeature::bridgeLayerSuggested);
    view->storeEdit()->setFocus();
    QTest::keyClicks(view->storeEdit(), m_store);
    QTRY_COMPARE_WITH_TIMEOUT(suggested.count(), 1, kTimeoutMs);
    QCOMPARE(suggested.at(0).at(1).toLongLong(), m_best);
    QCOMPARE(view->layerBox()->value(), m_best);
    QVERIFY2(view->layerSourceLabel()->text().contains(QStringLiteral("/geometry")),
             qPrintable(view->layerSourceLabel()->text()));

    // A layer chosen by hand stays, and the label says what the score would pick.
    const int other = m_best == 1 ? 2 : 1;
    view->layerBox()->setValue(other);
    QVERIFY(view->layerSourceLabel()->text().contains(QStringLiteral("by hand")));
    view->setSuggestedLayer(m_best, QStringLiteral("acts.h5"));
    QCOMPARE(view->layerBox()->value(), other);
  }

  void aStoreWithoutScoresSaysSo() {
    MainWindow window(MainWindow::Options{false});
    QStringList errors;
    window.setErrorReporter([&](const ErrorReport& report) { errors << report.error; });
    window.feature<BridgeFeature>()->showBridgeView();
    BridgeView* view = window.feature<BridgeFeature>()->bridgeView();
    QSignalSpy suggested(window.feature<BridgeFeature>(), &BridgeFeature::bridgeLayerSuggested);
    view->storeEdit()->setFocus();
    QTest::keyClicks(view->storeEdit(), m_root.filePath("missing.h5"));
    QTRY_COMPARE_WITH_TIMEOUT(suggested.count(), 1, kTimeoutMs);
    QCOMPARE(suggested.at(0).at(1).toLongLong(), -1);
    QVERIFY(view->layerSourceLabel()->text().startsWith(QStringLiteral("No l* from missing.h5")));
    QVERIFY(errors.isEmpty());  // not an error: the label says it
  }

  void sweepsFromTheDialogIntoTheBridgeabilityTab() {
    MainWindow window(MainWindow::Options{false});
    QStringList errors;
    window.setErrorReporter([&](const ErrorReport& report) { errors << report.error; });
    window.feature<OpenFeature>()->openActivationStore(m_store);
    QTRY_VERIFY_WITH_TIMEOUT(window.feature<GeometryFeature>()->geometryView(m_store), kTimeoutMs);
    window.feature<BridgeFeature>()->showBridgeView();
    window.feature<BridgeFeature>()->bridgeView()->setCorpus(m_corpus);
    window.feature<BridgeFeature>()->bridgeView()->setRefreshInterval(20);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));

    window.feature<BridgeFeature>()->bridgeView()->sweepButton()->click();
    auto* dialog = window.findChild<BridgeSweepDialog*>();
    QVERIFY(dialog);
    QCOMPARE(dialog->storeEdit()->text(), m_store);  // filled from the Bridge tab
    QCOMPARE(dialog->firstLayerBox()->value(), 1);   // the default candidates 1..L−1
    QCOMPARE(dialog->lastLayerBox()->value(), 3);
    dialog->lastLayerBox()->setValue(2);
    dialog->stepsBox()->setValue(8);
    dialog->baselineBox()->setChecked(false);
    const QString folder = QDir::cleanPath(m_root.filePath("sweep"));
    dialog->folderEdit()->setText(folder);
    dialog->settingsEdit()->setText(QStringLiteral("no_such_setting=1"));
    QVERIFY(!dialog->okButton()->isEnabled());  // checked against the bridge schema
    QVERIFY2(dialog->problem().contains(QStringLiteral("no_such_setting")),
             qPrintable(dialog->problem()));
    dialog->settingsEdit()->setText(QStringLiteral(
        "batch=2 seq_len=16 width=16 depth=1 heads=2 mlp_ratio=2 sample_steps=2 log_every=1 "
        "eval_every=4 checkpoint_every=4 eval_windows=2 stats_windows=4 threads=1 device=cpu"));
    QVERIFY2(dialog->okButton()->isEnabled(), qPrintable(dialog->problem()));

    QSignalSpy finished(window.feature<BridgeFeature>(), &BridgeFeature::bridgeSweepFinished);
    dialog->okButton()->click();
    QCOMPARE(window.feature<BridgeFeature>()->sweepFolder(), folder);
    QVERIFY(window.feature<BridgeFeature>()->bridgeView()->runLabel()->text().startsWith(
        QStringLiteral("Sweep")));
    // The sweep holds the window's one training slot: a training run is refused meanwhile.
    engine::TrainingRequest other;
    other.recipe = "bridge";
    other.runFolder = m_root.filePath("refused-run").toStdString();
    QVERIFY(!window.feature<TrainingFeature>()->startTrainingRun(other));
    QVERIFY(!QFileInfo::exists(m_root.filePath("refused-run")));
    // The tab follows whichever layer run of the sweep is training.
    QTRY_VERIFY_WITH_TIMEOUT(window.feature<BridgeFeature>()->bridgeView()->shownRun().startsWith(
                                 folder + "/runs/layer-"),
                             kTimeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 3 * kTimeoutMs);
    QVERIFY2(errors.isEmpty(), qPrintable(errors.join('\n')));
    QCOMPARE(finished.at(0).at(1).value<JobOutcome>(), JobOutcome::Succeeded);
    QVERIFY(window.feature<BridgeFeature>()->sweepFolder().isEmpty());
    BridgeabilityView* view = window.feature<BridgeFeature>()->bridgeabilityView(folder);
    QVERIFY(view);
    QCOMPARE(view->table()->rowCount(), 2);
    QCOMPARE(view->result().rows.at(1).run,
             std::filesystem::path((folder + "/runs/layer-2-s0").toStdString()));
    QVERIFY(QFileInfo::exists(folder + "/sweep.json"));
  }

  void plotsTheFollowedRunsEvaluations() {
    const QString run = m_root.filePath("runs/bridge-by-hand");
    QVERIFY(QDir().mkpath(run));
    writeText(run + "/run.json", R"({"recipe": "bridge", "config": {}})");
    writeText(run + "/status.json", R"({"state": "finished", "step": 20, "total_steps": 20})");
    QByteArray metrics;
    for (int step = 1; step <= 20; ++step) {
      metrics += "{\"step\": " + QByteArray::number(step) + ", \"loss\": 1.0";
      if (step % 10 == 0)
        metrics += ", \"val_loss\": 0.5, \"val_cosine\": " + QByteArray::number(step / 40.0) +
                   ", \"val_top1_agreement\": 0.25, \"val_ce_gap\": 1.5";
      metrics += "}\n";
    }
    writeText(run + "/metrics.jsonl", metrics);

    BridgeView view;
    view.showRun(run);
    BridgeMetricsPlot* plot = view.metricsPlot();
    QCOMPARE(plot->cosineGraph()->dataCount(), 2);  // the evaluations only
    QCOMPARE(plot->cosineGraph()->data()->at(1)->value, 0.5);
    QCOMPARE(plot->agreementGraph()->dataCount(), 2);
    QCOMPARE(plot->ceGapGraph()->data()->at(0)->value, 1.5);
    QVERIFY2(view.runLabel()->text().contains(QStringLiteral("finished, step 20 of 20")),
             qPrintable(view.runLabel()->text()));

    writeText(run + "/metrics.jsonl",
              metrics + R"({"step": 30, "val_cosine": 0.9, "val_top1_agreement": 0.5})"
                        "\n");
    view.pollRun();  // the live tail
    QCOMPARE(plot->cosineGraph()->dataCount(), 3);
  }

 private:
  QTemporaryDir m_root;
  QString m_corpus;
  QString m_store;
  int64_t m_best = -1;
};

QTEST_MAIN(BridgeViewTest)
#include "bridge_view_test.moc"
