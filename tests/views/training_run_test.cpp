// End to end: a real pretrain run started from the Training tab (Start… → launcher → OK) on a
// tiny corpus, with the GUI's event loop watched for stalls while it trains; then Pause, Stop
// (a stopped run the list shows) and Resume (the run finishes).

#include <qcustomplot.h>

#include <QAction>
#include <QDialogButtonBox>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include "display_text.h"
#include "engine/recipe_catalog.h"
#include "engine/run_folder.h"
#include "features/training/training_feature.h"
#include "job_progress_widget.h"
#include "log_dock.h"
#include "main_window.h"
#include "runnable_model_fixture.h"
#include "runs_table.h"
#include "throw_away_settings.h"
#include "training_launch_dialog.h"
#include "training_plots.h"
#include "training_view.h"

using namespace strata;

namespace {

/** The State cell of `folder`'s row; empty while the list (read on a worker) lacks it. */
QString stateOf(const RunsTable* table, const QString& folder) {
  const int row = table->rowOf(folder);
  const QTableWidgetItem* cell = row < 0 ? nullptr : table->item(row, RunsTable::StateColumn);
  return cell ? cell->text() : QString();
}

constexpr int kTimeoutMs = 30000;  // a failing QTRY waits 3× this: stay under CTest's 120 s
// Training (or reading its files) on the GUI thread would stall the loop for most of the run's
// seconds; 200 ms still tells that apart while tolerating a loaded 2-core machine (a stall of
// 75 ms was seen once with a compiler running beside the suite; typically 13–29 ms).
constexpr qint64 kMaxStallMs = 200;

/** The longest gap between ticks of a 5 ms timer: how long the event loop was ever busy. */
class StallMeter final : public QObject {
 public:
  StallMeter() {
    m_timer.setTimerType(Qt::PreciseTimer);
    connect(&m_timer, &QTimer::timeout, this, [this] {
      const qint64 gap = m_sinceTick.restart();
      m_longest = std::max(m_longest, gap);
      ++m_ticks;
    });
  }
  void start() {
    m_longest = 0;
    m_ticks = 0;
    m_sinceTick.start();
    m_timer.start(5);
  }
  void stop() { m_timer.stop(); }
  qint64 longest() const { return m_longest; }
  int ticks() const { return m_ticks; }

 private:
  QTimer m_timer;
  QElapsedTimer m_sinceTick;
  qint64 m_longest = 0;
  int m_ticks = 0;
};

/** Shows `window` with its Training tab polling fast; errors reported go into `errors`. */
TrainingView* openTrainingTab(MainWindow& window, QStringList& errors) {
  window.setErrorReporter([&errors](const ErrorReport& report) { errors << report.error; });
  window.show();
  window.feature<TrainingFeature>()->showTrainingView();
  TrainingView* view = window.feature<TrainingFeature>()->trainingView();
  view->setRefreshIntervals(100, 50);
  return view;
}

}  // namespace

class TrainingRunTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(m_root.isValid());
    test::useThrowAwaySettings(m_root);
    qputenv("STRATA_RUNS_DIR", QFile::encodeName(m_root.filePath("runs")));
    qputenv("STRATA_PLUGIN_PATH", STRATA_TEST_PLUGIN_DIR);  // before the first plugin lookup
    m_corpus = m_root.filePath("words.txt");
    test::writeWordCorpus(m_corpus, 300);
  }

  void trainsFromTheTabWithoutStallingTheGui() {
    MainWindow window(MainWindow::Options{false});
    QStringList errors;
    window.setErrorReporter([&](const ErrorReport& report) { errors << report.error; });
    window.show();
    QCOMPARE(window.runsRoot(), QDir::cleanPath(m_root.filePath("runs")));
    window.feature<TrainingFeature>()->showTrainingView();
    TrainingView* view = window.feature<TrainingFeature>()->trainingView();
    QVERIFY(view);
    QVERIFY(QTest::qWaitForWindowExposed(&window));

    // Start… opens the launcher (non-modal); fill it in and press Start.
    view->startButton()->click();
    auto* dialog = window.findChild<TrainingLaunchDialog*>();
    QVERIFY(dialog);
    const std::pair<const char*, QString> values[] = {
        {"corpus", m_corpus},  {"steps", "1000"},
        {"batch", "2"},        {"seq_len", "16"},
        {"dim", "16"},         {"layers", "1"},
        {"heads", "2"},        {"mlp", "32"},
        {"log_every", "1"},    {"checkpoint_every", "250"},
        {"eval_every", "100"}, {"eval_windows", "4"},
        {"warmup", "5"},       {"device", "cpu"},
        {"threads", "1"}};
    for (const auto& [key, value] : values) {
      dialog->setValueText(key, value);
      QCOMPARE(dialog->valueText(key), value);
    }
    const QString folder = QDir::cleanPath(m_root.filePath("runs/e2e"));
    dialog->setRunFolder(folder);
    QVERIFY2(dialog->okButton()->isEnabled(), qPrintable(dialog->problem()));

    QTest::qWait(100);  // the window's first paint is not the training's doing
    StallMeter meter;
    // The machine's own jitter, for reading a failure: the same meter with nothing running.
    meter.start();
    QTest::qWait(500);
    meter.stop();
    const qint64 idle = meter.longest();
    QSignalSpy started(&window.events(), &WorkbenchEvents::trainingStarted);
    QSignalSpy finished(window.feature<TrainingFeature>(), &TrainingFeature::trainingFinished);
    QSignalSpy plotted(view, &TrainingView::recordsArrived);
    meter.start();
    QElapsedTimer clock;
    clock.start();

    dialog->okButton()->click();
    QCOMPARE(started.count(), 1);
    QCOMPARE(started.at(0).at(0).toString(), folder);
    QVERIFY(!view->startButton()->isEnabled());
    QVERIFY(view->pauseButton()->isEnabled() && view->stopButton()->isEnabled());
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeoutMs);
    meter.stop();
    QVERIFY2(errors.isEmpty(), qPrintable(errors.join('\n')));
    QCOMPARE(finished.at(0).at(1).value<JobOutcome>(), JobOutcome::Succeeded);
    qInfo("longest event-loop stall while training: %lld ms (%d ticks in %lld ms; idle: %lld ms)",
          meter.longest(), meter.ticks(), clock.elapsed(), idle);
    QVERIFY2(meter.longest() < kMaxStallMs, qPrintable(QString::number(meter.longest())));
    QVERIFY2(plotted.count() >= 2,
             "the plot grew only after the run");  // the last read is at the end

    // Every logged step reached the plot, and the list shows the finished run.
    QTRY_COMPARE(view->plots()->trainLossGraph()->dataCount(), 1000);
    QVERIFY(view->plots()->evalLossGraph()->dataCount() >=
            10);  // every 100 steps and at checkpoints
    QCOMPARE(view->plots()->learningRateGraph()->dataCount(), 1000);
    QTRY_COMPARE(stateOf(view->runsTable(), folder), QStringLiteral("finished"));
    const int row = view->runsTable()->rowOf(folder);
    QCOMPARE(view->runsTable()->item(row, RunsTable::StepColumn)->text(),
             QStringLiteral("1000 / 1000"));
    QCOMPARE(view->progressBar()->value(), 1000);
    QTRY_VERIFY(view->logView()->toPlainText().contains("step 1000/1000"));
    QVERIFY(view->startButton()->isEnabled());
  }

  void plansTheRunsMemoryFromTheLauncherWithoutStartingIt() {
    MainWindow window(MainWindow::Options{false});
    QStringList errors;
    window.setErrorReporter([&](const ErrorReport& report) { errors << report.error; });
    window.show();
    window.feature<TrainingFeature>()->showTrainingLaunchDialog();
    auto* dialog = window.findChild<TrainingLaunchDialog*>();
    QVERIFY(dialog);
    QVERIFY(dialog->setRecipe(QStringLiteral("echo")));  // the test plugin's recipe
    const QString folder = QDir::cleanPath(m_root.filePath("runs/planned"));
    dialog->setRunFolder(folder);
    dialog->setValueText(QStringLiteral("plan"), QString::number(qint64(3) << 30));
    QVERIFY(!dialog->planLabel()->isVisible());
    QVERIFY2(dialog->planButton()->isEnabled(), qPrintable(dialog->problem()));
    // Plan Memory stands apart, left of Start and Cancel (not between them).
    QTRY_VERIFY(dialog->isVisible());
    const auto* box = dialog->findChild<QDialogButtonBox*>();
    QVERIFY(box);
    const auto leftOf = [&](const QWidget* w) { return w->mapTo(dialog, QPoint()).x(); };
    QVERIFY(box->findChildren<QPushButton*>().size() == 2);
    for (const QPushButton* b : box->findChildren<QPushButton*>())
      QVERIFY2(leftOf(dialog->planButton()) + dialog->planButton()->width() <= leftOf(b),
               qPrintable(b->text()));

    qputenv("STRATA_MEMORY_AVAILABLE", "4G");
    dialog->planButton()->click();
    QTRY_VERIFY(dialog->planLabel()->text().contains(QStringLiteral("fits")));
    QCOMPARE(dialog->planLabel()->text(),
             QStringLiteral("training memory plan: plugin recipe echo: echo's buffer; process "
                            "512 MiB — needs 3.50 GiB of 4.00 GiB available memory: fits"));
    QVERIFY(dialog->planLabel()->isVisible());
    QVERIFY(dialog->planButton()->isEnabled());
    QVERIFY2(!QFileInfo::exists(folder), "planning created the run folder");

    // An edit makes the shown plan another request's: it goes.
    dialog->setValueText(QStringLiteral("greeting"), QStringLiteral("hello again"));
    QVERIFY(!dialog->planLabel()->isVisible());

    qputenv("STRATA_MEMORY_AVAILABLE", "2G");
    dialog->planButton()->click();
    QTRY_VERIFY(dialog->planLabel()->text().contains(QStringLiteral("does not fit")));
    QVERIFY(dialog->planLabel()->text().contains(QStringLiteral("ask echo for less")));
    qunsetenv("STRATA_MEMORY_AVAILABLE");

    // A recipe that cannot plan says so in the dialog, not in an error box.
    dialog->setValueText(QStringLiteral("plan"), QString());
    dialog->planButton()->click();
    QTRY_VERIFY(dialog->planLabel()->text().startsWith(QStringLiteral("Could not plan the run")));
    QVERIFY(dialog->planLabel()->text().contains(QStringLiteral("did not plan its memory")));
    QVERIFY2(errors.isEmpty(), qPrintable(errors.join('\n')));
    QVERIFY(!QFileInfo::exists(folder));
    dialog->reject();
  }

  void pauseStopAndResume() {
    MainWindow window(MainWindow::Options{false});
    QStringList errors;
    TrainingView* view = openTrainingTab(window, errors);

    engine::TrainingRequest request;
    request.recipe = "pretrain";
    const engine::ConfigSchema schema = engine::recipeSchema(request.recipe);
    request.config = engine::ResolvedConfig(schema);
    for (const char* assignment : {"steps=400", "batch=2", "seq_len=16", "dim=16", "layers=1",
                                   "heads=2", "mlp=32", "log_every=1", "checkpoint_every=100",
                                   "eval_windows=4", "warmup=5", "device=cpu", "threads=1"})
      engine::applyOverride(schema, assignment, request.config);
    request.config.set("corpus", m_corpus.toStdString());
    const QString folder = QDir::cleanPath(m_root.filePath("runs/stopped"));
    request.runFolder = toFsPath(folder);

    // Pause as soon as step 10 is logged: deterministic, however fast the steps are.
    QSignalSpy finished(window.feature<TrainingFeature>(), &TrainingFeature::trainingFinished);
    QVERIFY(window.feature<TrainingFeature>()->startTrainingRun(request));
    QTRY_VERIFY_WITH_TIMEOUT(view->plots()->recordCount() >= 10, kTimeoutMs);
    view->pauseButton()->click();
    QCOMPARE(view->activeState(), TrainingView::ActiveState::Paused);
    QVERIFY(view->resumeButton()->isEnabled());
    QTRY_VERIFY_WITH_TIMEOUT(view->logView()->toPlainText().contains("paused at step"), kTimeoutMs);
    QTRY_COMPARE(stateOf(view->runsTable(), folder), QStringLiteral("paused"));
    // The status bar says so too (it once went on saying "Training … step 33/1000").
    QTRY_VERIFY2(window.jobProgress()->stageText().contains("paused at step"),
                 qPrintable(window.jobProgress()->stageText()));

    view->stopButton()->click();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeoutMs);
    QCOMPARE(finished.at(0).at(1).value<JobOutcome>(), JobOutcome::Cancelled);
    QVERIFY2(errors.isEmpty(), qPrintable(errors.join('\n')));
    const engine::RunStatus stopped = engine::readRunStatus(toFsPath(folder));
    QCOMPARE(stopped.state, engine::RunState::Stopped);
    QVERIFY(stopped.step >= 10 && stopped.step < 400);
    QTRY_COMPARE(stateOf(view->runsTable(), folder), QStringLiteral("stopped"));
    // The user's Stop is no warning.
    const QString log = window.logDock()->text();
    QVERIFY2(log.contains("stopped at step") && !log.contains("warning: Training of"),
             qPrintable(log));

    // Resume: select the stopped run and continue it to the end.
    view->runsTable()->selectRow(view->runsTable()->rowOf(folder));
    QCOMPARE(view->shownRun(), folder);
    QTRY_VERIFY(view->resumeButton()->isEnabled());
    view->resumeButton()->click();
    QCOMPARE(view->activeState(), TrainingView::ActiveState::Training);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, 3 * kTimeoutMs);
    QVERIFY2(errors.isEmpty(), qPrintable(errors.join('\n')));
    QCOMPARE(finished.at(1).at(1).value<JobOutcome>(), JobOutcome::Succeeded);
    QCOMPARE(engine::readRunStatus(toFsPath(folder)).state, engine::RunState::Finished);
    QTRY_COMPARE(stateOf(view->runsTable(), folder), QStringLiteral("finished"));
    QTRY_COMPARE(view->plots()->lastStep(), int64_t{400});
  }

  void trainsAPluginRecipeFromTheWindow() {
    MainWindow window(MainWindow::Options{false});
    QStringList errors;
    TrainingView* view = openTrainingTab(window, errors);

    engine::TrainingRequest request;
    request.recipe = "echo";  // tests/plugins/test_plugin.cpp: loss = 1/step
    const engine::ConfigSchema schema = engine::recipeSchema(request.recipe);
    request.config = engine::ResolvedConfig(schema);
    engine::applyOverride(schema, "steps=30", request.config);
    const QString folder = QDir::cleanPath(m_root.filePath("runs/echo"));
    request.runFolder = toFsPath(folder);
    QSignalSpy finished(window.feature<TrainingFeature>(), &TrainingFeature::trainingFinished);
    QVERIFY(window.feature<TrainingFeature>()->startTrainingRun(request));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeoutMs);
    QVERIFY2(errors.isEmpty(), qPrintable(errors.join('\n')));
    QCOMPARE(finished.at(0).at(1).value<JobOutcome>(), JobOutcome::Succeeded);
    QCOMPARE(engine::readRunStatus(toFsPath(folder)).state, engine::RunState::Finished);
    QTRY_COMPARE(view->plots()->recordCount(), int64_t{30});
    QCOMPARE(view->plots()->lastStep(), int64_t{30});
    QTRY_COMPARE(stateOf(view->runsTable(), folder), QStringLiteral("finished"));
  }

 private:
  QTemporaryDir m_root;
  QString m_corpus;
};

QTEST_MAIN(TrainingRunTest)
#include "training_run_test.moc"
