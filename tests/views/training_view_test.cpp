// The Training tab without training: the launcher built from the pretrain schema, a
// hand-written run replayed and followed live, and the exports.

#include "training_view.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <memory>

#include "common/error.h"
#include "display_text.h"
#include "engine/recipe_catalog.h"
#include "features/training/training_feature.h"
#include "io/writer_lock.h"
#include "main_window.h"
#include "metrics_feeds.h"
#include "metrics_follower.h"
#include "runs_table.h"
#include "throw_away_settings.h"
#include "training_launch_dialog.h"
#include "training_plots.h"
#include "window_sizes.h"

using namespace strata;

namespace {

void writeText(const QString& file, const QByteArray& text, bool append = false) {
  QFile out(file);
  QVERIFY(out.open(append ? QIODevice::Append : QIODevice::WriteOnly | QIODevice::Truncate));
  QCOMPARE(out.write(text), text.size());
}

/** 20 steps of a repr_align run: "loss" is masked CE + λ·alignment (7.5), "task_loss" the
 *  masked CE (3.4), an evaluation (val_loss, 3.3) every 10 steps. */
std::vector<engine::MetricsRecord> reprAlignRecords() {
  std::vector<engine::MetricsRecord> records;
  for (int64_t step = 1; step <= 20; ++step) {
    records.push_back({step, 1.7e9 + double(step), {{"loss", 7.5}, {"task_loss", 3.4}}});
    if (step % 10 == 0) records.push_back({step, 1.7e9 + double(step), {{"val_loss", 3.3}}});
  }
  return records;
}

/** One metrics.jsonl line: losses falling, an evaluation every 10 steps, 1 s per step. */
QByteArray metricsLine(int step) {
  QByteArray line = QStringLiteral(
                        "{\"step\": %1, \"wall_time\": %2, \"loss\": %3, \"lr\": %4, "
                        "\"tokens_per_s\": %5")
                        .arg(step)
                        .arg(1700000000 + step)
                        .arg(5.0 / std::sqrt(step), 0, 'g', 10)
                        .arg(1e-3 * step / 30.0, 0, 'g', 10)
                        .arg(1000 + step)
                        .toUtf8();
  if (step % 10 == 0)
    line += ", \"val_loss\": " + QByteArray::number(6.0 / std::sqrt(step), 'g', 10);
  return line + "}\n";
}

/** A finished run of `steps` logged steps, as strata-cli writes it. */
void writeRun(const QString& folder, int steps, const char* state = "finished") {
  QVERIFY(QDir().mkpath(folder));
  writeText(folder + "/run.json",
            R"({"recipe": "pretrain", "created": "2024-05-01T10:00:00Z", "config": {}})");
  writeText(
      folder + "/status.json",
      QStringLiteral(R"({"state": "%1", "step": %2, "total_steps": 50, "updated": 1700000030})")
          .arg(QLatin1String(state))
          .arg(steps)
          .toUtf8());
  QByteArray metrics;
  for (int step = 1; step <= steps; ++step) metrics += metricsLine(step);
  writeText(folder + "/metrics.jsonl", metrics);
}

}  // namespace

class TrainingViewTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(m_root.isValid());
    test::useThrowAwaySettings(m_root);
    m_corpus = m_root.filePath("corpus.txt");
    writeText(m_corpus, "some words\n");
  }

  void launcherHasAFieldForEverySettingWithItsDefault() {
    const engine::ConfigSchema schema = engine::recipeSchema("pretrain");
    TrainingLaunchDialog dialog({schema}, m_root.filePath("runs"));
    QCOMPARE(dialog.recipe(), QStringLiteral("pretrain"));
    QVERIFY(dialog.recipeBox()->isHidden());  // one recipe: nothing to choose
    for (const engine::SettingSpec& spec : schema.settings) {
      const QString key = QString::fromStdString(spec.key);
      QWidget* field = dialog.field(key);
      QVERIFY2(field, qPrintable(key));
      if (spec.required)
        QVERIFY(dialog.valueText(key).isEmpty());
      else
        QVERIFY2(engine::parseSetting(spec, dialog.valueText(key).toStdString(), {}) ==
                     spec.defaultValue,
                 qPrintable(key));
      QVERIFY2(field->toolTip().contains(QString::fromStdString(spec.description)),
               qPrintable(key));
    }
    QVERIFY(qobject_cast<QSpinBox*>(dialog.field("steps")));
    QVERIFY(qobject_cast<QLineEdit*>(dialog.field("lr")));  // reals are typed: 3e-4 survives
    QVERIFY(qobject_cast<QComboBox*>(dialog.field("device")));
    QVERIFY(dialog.field("lr")->toolTip().contains("Range: 0 … 10"));
    QVERIFY(dialog.field("device")->toolTip().contains("One of: auto, cpu, cuda"));
    QVERIFY(dialog.runFolderEdit()->text().startsWith(
        QDir::cleanPath(m_root.filePath("runs/pretrain-"))));
    QVERIFY(!dialog.okButton()->isEnabled());  // the corpus is required
    QVERIFY(dialog.problem().contains("corpus"));
    QVERIFY(!dialog.problemLabel()->isHidden());
  }

  void launcherRejectsAnOutOfRangeValue() {
    TrainingLaunchDialog dialog({engine::recipeSchema("pretrain")}, m_root.filePath("runs"));
    dialog.setValueText("corpus", m_corpus);
    QVERIFY(dialog.okButton()->isEnabled());
    QVERIFY(dialog.problem().isEmpty());
    dialog.setValueText("lr", "20");
    QVERIFY(!dialog.okButton()->isEnabled());
    QVERIFY2(dialog.problem().contains("'lr'") && dialog.problem().contains("at most"),
             qPrintable(dialog.problem()));
    dialog.setValueText("lr", "fast");
    QVERIFY(!dialog.okButton()->isEnabled());
    dialog.setValueText("lr", "3e-4");
    QVERIFY(dialog.okButton()->isEnabled());
    auto* steps = qobject_cast<QSpinBox*>(dialog.field("steps"));
    QCOMPARE(steps->minimum(), 1);  // the spin box cannot go below the schema's minimum
  }

  void launcherReturnsTheTypedConfig() {
    TrainingLaunchDialog dialog({engine::recipeSchema("pretrain")}, m_root.filePath("runs"));
    dialog.setValueText("corpus", m_corpus);
    dialog.setValueText("steps", "40");
    dialog.setValueText("lr", "3e-4");
    dialog.setValueText("device", "cpu");
    dialog.setValueText("tokenizer", "byte");
    dialog.setRunFolder(m_root.filePath("runs/mine"));
    const engine::TrainingRequest request = dialog.request();
    QCOMPARE(request.recipe, std::string("pretrain"));
    QCOMPARE(request.config.integer("steps"), int64_t{40});
    QCOMPARE(request.config.real("lr"), 3e-4);
    QCOMPARE(request.config.text("device"), std::string("cpu"));
    QCOMPARE(request.config.text("corpus"), m_corpus.toStdString());
    QCOMPARE(request.config.integer("dim"), int64_t{128});  // untouched: the default
    QCOMPARE(toQString(request.runFolder), QDir::cleanPath(m_root.filePath("runs/mine")));

    writeRun(m_root.filePath("runs/taken"), 3);
    dialog.setRunFolder(m_root.filePath("runs/taken"));
    QVERIFY(!dialog.okButton()->isEnabled());
    QVERIFY(dialog.problem().contains("already holds a run"));
  }

  void launcherRemembersItsValues() {
    QSettings settings(m_root.filePath("launcher.ini"), QSettings::IniFormat);
    {
      TrainingLaunchDialog dialog({engine::recipeSchema("pretrain")}, m_root.filePath("runs"));
      dialog.setValueText("corpus", m_corpus);
      dialog.setValueText("lr", "3e-4");
      dialog.saveSettings(settings);
    }
    TrainingLaunchDialog again({engine::recipeSchema("pretrain")}, m_root.filePath("runs"));
    again.restoreSettings(settings);
    QCOMPARE(again.valueText("corpus"), m_corpus);
    QCOMPARE(again.valueText("lr"), QStringLiteral("3e-4"));
    QVERIFY(again.okButton()->isEnabled());
  }

  void launcherKeepsWhatWasTypedPerRecipe() {
    // Switching recipe once rebuilt the form from the defaults: what was typed was lost.
    TrainingLaunchDialog dialog({engine::recipeSchema("pretrain"), engine::recipeSchema("dcdm")},
                                m_root.filePath("runs"));
    QCOMPARE(dialog.recipe(), QStringLiteral("pretrain"));
    dialog.setValueText("corpus", m_corpus);
    dialog.setValueText("lr", "3e-4");
    QVERIFY(dialog.setRecipe("dcdm"));
    QCOMPARE(dialog.valueText("corpus"), QString());  // another recipe: its own texts
    dialog.setValueText("steps", "77");
    QVERIFY(dialog.setRecipe("pretrain"));
    QCOMPARE(dialog.valueText("corpus"), m_corpus);
    QCOMPARE(dialog.valueText("lr"), QStringLiteral("3e-4"));
    QVERIFY(dialog.setRecipe("dcdm"));
    QCOMPARE(dialog.valueText("steps"), QStringLiteral("77"));

    // A value set for every recipe (the Preferences' device) reaches the recipes shown later.
    dialog.setValueTextForEveryRecipe("device", "cpu");
    QVERIFY(dialog.setRecipe("pretrain"));
    QCOMPARE(dialog.valueText("device"), QStringLiteral("cpu"));
  }

  void launcherLinesUpTheFieldsOfEveryGroup() {
    TrainingLaunchDialog dialog({engine::recipeSchema("pretrain")}, m_root.filePath("runs"));
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    // steps (schedule) and dim (model) sit in different groups.
    const int steps = dialog.field("steps")->mapTo(&dialog, QPoint(0, 0)).x();
    const int dim = dialog.field("dim")->mapTo(&dialog, QPoint(0, 0)).x();
    QCOMPARE(steps, dim);
  }

  void viewListsAndReplaysARun() {
    const QString root = m_root.filePath("replay");
    writeRun(root + "/run-a", 30);
    TrainingView view(root);
    view.setRefreshIntervals(100, 50);
    view.show();
    QTRY_COMPARE(view.runsTable()->rowCount(), 1);  // read on a worker thread
    QCOMPARE(view.runsTable()->item(0, RunsTable::RunColumn)->text(), QStringLiteral("run-a"));
    QCOMPARE(view.runsTable()->item(0, RunsTable::RecipeColumn)->text(),
             QStringLiteral("pretrain"));
    QCOMPARE(view.runsTable()->item(0, RunsTable::StateColumn)->text(), QStringLiteral("finished"));
    QCOMPARE(view.runsTable()->item(0, RunsTable::StepColumn)->text(), QStringLiteral("30 / 50"));

    QSignalSpy shown(&view, &TrainingView::runShown);
    view.runsTable()->selectRow(0);
    QCOMPARE(shown.count(), 1);
    TrainingPlots* plots = view.plots();
    QCOMPARE(plots->recordCount(), int64_t{30});
    QCOMPARE(plots->trainLossGraph()->dataCount(), 30);
    QCOMPARE(plots->smoothedLossGraph()->dataCount(), 30);
    QCOMPARE(plots->evalLossGraph()->dataCount(), 3);
    QCOMPARE(plots->evalLossGraph()->data()->at(1)->key, 20.0);
    QCOMPARE(plots->learningRateGraph()->dataCount(), 30);
    QCOMPARE(plots->throughputGraph()->dataCount(), 30);
    QCOMPARE(view.progressBar()->value(), 30);
    QCOMPARE(view.progressBar()->maximum(), 50);
    QVERIFY(view.etaLabel()->text().contains("1 steps/s"));
  }

  // Review 2026-12-05, defect 14: in the workbench at 1100×700 and maximised, the runs list shows
  // State, Step and Updated whole ("finishec" was cut), the loss legend sits over no data and
  // the last evaluation's marker is drawn whole.
  void runsListAndLossPlotReadAtDefaultSizeAndMaximised_data() { testing::addWindowSizeRows(); }
  void runsListAndLossPlotReadAtDefaultSizeAndMaximised() {
    QFETCH(bool, maximised);
    QFETCH(QSize, size);
    const QString root = m_root.filePath(maximised ? "sizes-max" : "sizes");
    writeRun(root + "/repr_align-20261205-111939", 50);
    writeRun(root + "/dcdm-20261205-111722", 30, "interrupted");
    MainWindow window(MainWindow::Options{false});
    auto* feature = window.feature<TrainingFeature>();
    feature->showRun(root + "/repr_align-20261205-111939");
    TrainingView* view = feature->trainingView();
    QVERIFY(view);
    view->setRunsRoot(root);
    if (const QString skip = testing::showForRow(window, maximised); !skip.isEmpty())
      QSKIP(qPrintable(skip));
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    if (size.isValid()) window.resize(size);
    if (!maximised) QCOMPARE(window.size(), size.isValid() ? size : QSize(1100, 700));
    RunsTable* table = view->runsTable();
    QTRY_COMPARE(table->rowCount(), 2);
    QTest::qWait(300);
    const int viewport = table->viewport()->width();
    for (const int column :
         {int(RunsTable::StateColumn), int(RunsTable::StepColumn), int(RunsTable::UpdatedColumn)})
      for (int row = 0; row < table->rowCount(); ++row) {
        const QString text = table->item(row, column)->text();
        const int left = table->columnViewportPosition(column);
        const int width = table->columnWidth(column);
        const QString where = QStringLiteral("“%1” in a %2 px column at %3 of a %4 px list")
                                  .arg(text)
                                  .arg(width)
                                  .arg(left)
                                  .arg(viewport);
        QVERIFY2(QFontMetrics(table->font()).horizontalAdvance(text) <= width, qPrintable(where));
        QVERIFY2(left >= 0 && left + width <= viewport, qPrintable(where));
      }

    TrainingPlots* plots = view->plots();
    QCustomPlot* loss = plots->plot(TrainingPlots::LossPlot);
    QTRY_COMPARE(plots->evalLossGraph()->dataCount(), 5);
    loss->replot(QCustomPlot::rpImmediateRefresh);
    const QRect data = loss->axisRect()->rect();
    const QRect legend = loss->legend->outerRect();
    QVERIFY2(!legend.intersects(data),
             qPrintable(QStringLiteral("legend (%1,%2 %3×%4) over the data (%5,%6 %7×%8)")
                            .arg(legend.x())
                            .arg(legend.y())
                            .arg(legend.width())
                            .arg(legend.height())
                            .arg(data.x())
                            .arg(data.y())
                            .arg(data.width())
                            .arg(data.height())));
    QVERIFY(loss->rect().contains(legend));
    const double radius = plots->evalLossGraph()->scatterStyle().size() / 2;
    const auto last = std::prev(plots->evalLossGraph()->data()->constEnd());
    const QPointF centre(loss->xAxis->coordToPixel(last->key),
                         loss->yAxis->coordToPixel(last->value));
    const QRectF marker(centre - QPointF(radius, radius), centre + QPointF(radius, radius));
    QVERIFY2(QRectF(data).contains(marker),
             qPrintable(QStringLiteral("last eval marker at (%1,%2), data right edge %3")
                            .arg(centre.x())
                            .arg(centre.y())
                            .arg(data.right())));
  }

  void smoothingAndLogScaleChangeTheLossPlot() {
    TrainingPlots plots;
    std::vector<engine::MetricsRecord> records;
    for (int step = 1; step <= 20; ++step)
      records.push_back(engine::parseMetricsLine(metricsLine(step).trimmed().toStdString()));
    plots.setRecords(records);
    plots.setSmoothing(0);
    QCOMPARE(plots.smoothedLossGraph()->data()->at(10)->value,
             plots.trainLossGraph()->data()->at(10)->value);
    plots.smoothingSlider()->setValue(90);
    QCOMPARE(plots.smoothing(), 0.9);
    const double raw = plots.trainLossGraph()->data()->at(10)->value;
    const double smooth = plots.smoothedLossGraph()->data()->at(10)->value;
    QVERIFY2(smooth > raw + 0.01, qPrintable(QStringLiteral("%1 vs %2").arg(smooth).arg(raw)));
    // Debiased: the first smoothed point is the first value, not pulled towards zero.
    QCOMPARE(plots.smoothedLossGraph()->data()->at(0)->value,
             plots.trainLossGraph()->data()->at(0)->value);

    QCustomPlot* loss = plots.plot(TrainingPlots::LossPlot);
    QCOMPARE(loss->yAxis->scaleType(), QCPAxis::stLinear);
    plots.logScaleBox()->setChecked(true);
    QCOMPARE(loss->yAxis->scaleType(), QCPAxis::stLogarithmic);
    plots.logScaleBox()->setChecked(false);
    QCOMPARE(loss->yAxis->scaleType(), QCPAxis::stLinear);
  }

  void viewFollowsARunBeingWritten() {
    const QString root = m_root.filePath("live");
    writeRun(root + "/run-live", 10, "running");
    TrainingView view(root);
    view.setRefreshIntervals(50, 20);
    view.show();
    view.showRun(root + "/run-live");
    QCOMPARE(view.plots()->recordCount(), int64_t{10});
    // Another process appends, the last line not yet finished.
    QByteArray more;
    for (int step = 11; step <= 15; ++step) more += metricsLine(step);
    writeText(root + "/run-live/metrics.jsonl", more + metricsLine(16).left(18), true);
    QTRY_COMPARE(view.plots()->recordCount(), int64_t{15});
    QCOMPARE(view.plots()->trainLossGraph()->dataCount(), 15);
    QCOMPARE(view.plots()->evalLossGraph()->dataCount(), 1);
    writeText(root + "/run-live/metrics.jsonl", metricsLine(16).mid(18), true);
    QTRY_COMPARE(view.plots()->recordCount(), int64_t{16});
    // A resume truncates the log (a new file): the plot starts over.
    QByteArray rewritten = metricsLine(1) + metricsLine(2);
    writeText(root + "/run-live/metrics.tmp", rewritten);
    QVERIFY(std::rename(qPrintable(root + "/run-live/metrics.tmp"),
                        qPrintable(root + "/run-live/metrics.jsonl")) == 0);
    QTRY_COMPARE(view.plots()->recordCount(), int64_t{2});
    // Without run.lock, a "running" status is a run whose process died.
    QTRY_COMPARE(view.runsTable()->item(0, RunsTable::StateColumn)->text(),
                 QStringLiteral("interrupted"));
    // A run started elsewhere appears by itself.
    writeRun(root + "/run-new", 5);
    QTRY_COMPARE(view.runsTable()->rowCount(), 2);
    QCOMPARE(view.shownRun(), QDir::cleanPath(root + "/run-live"));
    // Hidden (another tab in front), the view reads nothing; shown again, it catches up.
    view.hide();
    writeText(root + "/run-live/metrics.jsonl", metricsLine(3), true);
    QTest::qWait(100);
    QCOMPARE(view.plots()->recordCount(), int64_t{2});
    view.show();
    QCOMPARE(view.plots()->recordCount(), int64_t{3});
  }

  void runsListIsReadOnAWorkerAndCoalesced() {
    const QString a = m_root.filePath("list-a");
    const QString b = m_root.filePath("list-b");
    const QString c = m_root.filePath("list-c");
    for (const char* name : {"r1", "r2", "r3"}) writeRun(a + "/" + name, 5);
    writeRun(b + "/only", 5);
    writeRun(c + "/c1", 5);
    writeRun(c + "/c2", 5);

    RunsTable table;
    QSignalSpy refreshed(&table, &RunsTable::refreshed);
    table.refresh(a, {});
    QVERIFY(table.refreshing());  // returned before reading: the rows wait for the worker
    QCOMPARE(table.rowCount(), 0);
    QTRY_COMPARE(refreshed.count(), 1);
    QCOMPARE(table.rowCount(), 3);
    QVERIFY(!table.refreshing());

    // Asked three times while one read runs: two reads, the second with the newest folder.
    table.refresh(b, {});
    table.refresh(a, {});
    table.refresh(c, {QDir::cleanPath(b + "/only"), QDir::cleanPath(m_root.filePath("absent"))});
    QTRY_VERIFY(!table.refreshing());
    QTest::qWait(50);
    QCOMPARE(refreshed.count(), 3);
    QCOMPARE(table.rowCount(), 3);  // c's two runs and the extra one; the absent one is left out
    QVERIFY(table.rowOf(QDir::cleanPath(b + "/only")) >= 0);
    QCOMPARE(table.rowOf(QDir::cleanPath(a + "/r1")), -1);

    // A table closed while its worker reads: the result is dropped, nothing breaks.
    auto* closing = new RunsTable;
    closing->refresh(a, {});
    delete closing;
    QTest::qWait(50);
  }

  void theFeedsOwnerScopesTheSharing() {
    // Two followers of one run folder share one feed through their owner, and only while the
    // owner lives: without one, or under another owner, or once the owner is gone, a follower
    // reads the run on its own.
    const QString root = m_root.filePath("owned");
    writeRun(root + "/run-o", 4, "running");
    auto feeds = std::make_unique<MetricsFeeds>();
    MetricsFollower training(1000, feeds.get(), nullptr);
    MetricsFollower bridge(1000, feeds.get(), nullptr);
    training.follow(root + "/run-o");
    bridge.follow(root + "/run-o");
    QVERIFY(training.feed() != nullptr);
    QCOMPARE(bridge.feed(), training.feed());
    QCOMPARE(feeds->size(), std::size_t{1});
    MetricsFeeds otherWindow;
    MetricsFollower other(1000, &otherWindow, nullptr);
    other.follow(root + "/run-o");
    QVERIFY(other.feed() != training.feed());
    MetricsFollower alone(1000, nullptr, nullptr);
    alone.follow(root + "/run-o");
    QVERIFY(alone.feed() != training.feed());
    // The owner's lifetime ends the sharing: its followers keep reading the feeds they hold, and
    // whatever they follow next is their own.
    feeds.reset();
    QCOMPARE(training.read().records.size(), std::size_t{4});
    bridge.follow(root + "/run-o");
    QVERIFY(bridge.feed() != training.feed());
    QCOMPARE(bridge.read().records.size(), std::size_t{4});
  }

  void followersOfOneRunShareOneRead() {
    // Two tabs (the Training tab and, say, Chunk Routing) following one run read its
    // metrics.jsonl once: what one follower's read found, the other is served.
    const QString root = m_root.filePath("shared");
    writeRun(root + "/run-s", 12, "running");
    MetricsFeeds feeds;  // the window's, in the application
    MetricsFollower training(1000, &feeds, nullptr);
    MetricsFollower routing(1000, &feeds, nullptr);
    training.follow(root + "/run-s");
    routing.follow(root + "/run-s/");  // the same folder spelled differently
    QVERIFY(training.feed() != nullptr);
    QCOMPARE(routing.feed(), training.feed());
    QCOMPARE(training.read().records.size(), std::size_t{12});
    QCOMPARE(routing.read().records.size(), std::size_t{12});
    writeText(root + "/run-s/metrics.jsonl", metricsLine(13) + metricsLine(14), true);
    QCOMPARE(training.read().records.size(), std::size_t{2});
    QVERIFY(QFile::remove(root + "/run-s/metrics.jsonl"));
    const MetricsUpdate late = routing.read();  // from the feed: the file is gone
    QVERIFY(late.error.isEmpty());
    QCOMPARE(late.records.size(), std::size_t{2});
    QCOMPARE(late.records.back().step, int64_t{14});
    QCOMPARE(training.feed()->heldRecords(), std::size_t{0});
    // A run of its own has a feed of its own; following nothing reads nothing.
    writeRun(root + "/run-t", 3);
    routing.follow(root + "/run-t");
    QVERIFY(routing.feed() != training.feed());
    QCOMPARE(routing.read().records.size(), std::size_t{3});
    routing.follow(QString());
    QVERIFY(routing.feed() == nullptr);
    QVERIFY(routing.read().records.empty());
  }

  void exportsPlotsAndCsv() {
    TrainingPlots plots;
    QVERIFY_THROWS_EXCEPTION(Error, plots.saveCsv(m_root.filePath("none.csv")));  // no run shown
    std::vector<engine::MetricsRecord> records;
    QByteArray log;
    for (int step = 1; step <= 10; ++step) {
      log += metricsLine(step);
      records.push_back(engine::parseMetricsLine(metricsLine(step).trimmed().toStdString()));
    }
    writeText(m_root.filePath("export-metrics.jsonl"), log);
    plots.setRecords(records);
    plots.setMetricsFile(m_root.filePath("export-metrics.jsonl"));
    const QString csv = m_root.filePath("metrics.csv");
    plots.saveCsv(csv);
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(file.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 11);
    QCOMPARE(lines[0], QStringLiteral("step,wall_time,loss,lr,tokens_per_s,val_loss"));
    const QStringList tenth = lines[10].split(',');
    QCOMPARE(tenth[0], QStringLiteral("10"));
    QCOMPARE(tenth[4].toDouble(), 1010.0);
    QVERIFY(std::abs(tenth[5].toDouble() - 6.0 / std::sqrt(10.0)) < 1e-9);
    QVERIFY(lines[1].endsWith(','));  // step 1 has no evaluation: an empty cell

    for (const char* name : {"loss.png", "loss.pdf"}) {
      const QString out = m_root.filePath(name);
      plots.savePlot(TrainingPlots::LossPlot, out);
      QVERIFY2(QFileInfo(out).size() > 1000, name);
    }
    plots.savePlot(TrainingPlots::LearningRatePlot, m_root.filePath("lr.png"));
    plots.savePlot(TrainingPlots::ThroughputPlot, m_root.filePath("throughput.pdf"));
    QFile pdf(m_root.filePath("throughput.pdf"));
    QVERIFY(pdf.open(QIODevice::ReadOnly));
    QVERIFY(pdf.read(4) == "%PDF");
    QVERIFY_THROWS_EXCEPTION(Error,
                             plots.savePlot(TrainingPlots::LossPlot, m_root.filePath("loss.bmp")));
  }

  void stepRateAndEtaLeaveOutPausesAndStops() {
    // 2 steps per second of training. Paused for 30 s after step 10; stopped after step 20 and
    // resumed an hour later. The wall times jump; train_seconds (what the loop logs) does not.
    // The review saw "1.59 steps/s" at a real ~3 after such a pause.
    const QString folder = m_root.filePath("paused/run");
    QVERIFY(QDir().mkpath(folder));
    writeText(folder + "/run.json",
              R"({"recipe": "pretrain", "created": "2024-05-01T10:00:00Z", "config": {}})");
    const auto status = [&](int step) {
      writeText(folder + "/status.json",
                QStringLiteral(R"({"state": "running", "step": %1, "total_steps": 50})")
                    .arg(step)
                    .toUtf8());
    };
    const auto line = [](int step, double wall) {
      return QStringLiteral(R"({"step": %1, "wall_time": %2, "loss": 1.0, "train_seconds": %3})")
                 .arg(step)
                 .arg(wall, 0, 'f', 3)
                 .arg(step / 2.0)
                 .toUtf8() +
             "\n";
    };
    QByteArray metrics;
    for (int step = 1; step <= 20; ++step)
      metrics += line(step, 1.7e9 + step / 2.0 + (step > 10 ? 30 : 0));
    writeText(folder + "/metrics.jsonl", metrics);
    status(20);
    // Held as the training process holds it: else "running" reads as interrupted.
    const io::WriterLock lock = io::WriterLock::forNewFile(toFsPath(folder + "/run.lock"), true);
    TrainingView view(m_root.filePath("paused"));
    view.setRefreshIntervals(50, 20);
    view.show();
    view.showRun(folder);
    QVERIFY2(view.etaLabel()->text() == QStringLiteral("2 steps/s · ETA 15 s"),
             qPrintable(view.etaLabel()->text()));

    QByteArray resumed;
    for (int step = 21; step <= 24; ++step) resumed += line(step, 1.7e9 + 3630 + step / 2.0);
    writeText(folder + "/metrics.jsonl", resumed, true);
    status(24);
    QTRY_COMPARE(view.plots()->lastStep(), int64_t{24});
    QVERIFY2(view.etaLabel()->text() == QStringLiteral("2 steps/s · ETA 13 s"),
             qPrintable(view.etaLabel()->text()));
  }

  // The task-loss names and the objective's are long: at the default window size a fixed three
  // entries a row clipped them ("train task loss (smoot"). Every name is drawn whole, inside
  // the plot, at any width.
  void lossLegendShowsEveryNameWhole() {
    TrainingPlots plots;
    plots.setRecords(reprAlignRecords());
    plots.objectiveBox()->setChecked(true);
    plots.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plots));
    QCustomPlot* loss = plots.plot(TrainingPlots::LossPlot);
    for (const int width : {500, 640, 800, 1400}) {
      plots.resize(width, 600);
      QTRY_COMPARE(plots.width(), width);
      loss->replot(QCustomPlot::rpImmediateRefresh);
      int entries = 0;
      for (int i = 0; i < loss->legend->itemCount(); ++i) {
        QCPAbstractLegendItem* item = loss->legend->item(i);
        if (!item) continue;  // a cell the wrapped last row leaves empty
        ++entries;
        const QRect drawn = item->outerRect();
        const QString where = QStringLiteral("entry %1 at %2 px: %3 px drawn of %4 needed, from %5")
                                  .arg(i)
                                  .arg(width)
                                  .arg(drawn.width())
                                  .arg(item->minimumOuterSizeHint().width())
                                  .arg(drawn.left());
        QVERIFY2(drawn.width() >= item->minimumOuterSizeHint().width(), qPrintable(where));
        QVERIFY2(loss->rect().contains(drawn), qPrintable(where));
      }
      QCOMPARE(entries, 4);
    }
  }

  void trainAndEvalCurvesShowOneQuantity() {
    // repr_align: "loss" is masked CE + λ·alignment (≈ 7.5), val_loss the masked CE (≈ 3.3);
    // the train curve once showed the first beside the second (review 2026-12-05, 38).
    TrainingPlots plots;
    plots.setRecords(reprAlignRecords());
    QVERIFY(plots.showsTaskLoss());
    QCOMPARE(plots.trainLossGraph()->dataCount(), 20);
    QCOMPARE(plots.trainLossGraph()->data()->at(5)->value, 3.4);
    QCOMPARE(plots.smoothedLossGraph()->data()->at(5)->value, 3.4);
    QVERIFY2(plots.trainLossGraph()->name().contains("task loss"),
             qPrintable(plots.trainLossGraph()->name()));
    QVERIFY(plots.evalLossGraph()->name().contains("task loss"));
    // The objective stays available, named for what it is, drawn only when asked for.
    QVERIFY(!plots.objectiveBox()->isHidden());
    QCOMPARE(plots.objectiveGraph()->dataCount(), 0);
    plots.objectiveBox()->setChecked(true);
    QCOMPARE(plots.objectiveGraph()->dataCount(), 20);
    QCOMPARE(plots.objectiveGraph()->data()->at(5)->value, 7.5);
    QVERIFY(plots.objectiveGraph()->name().contains("not comparable with eval"));
    QVERIFY(
        plots.plot(TrainingPlots::LossPlot)->legend->hasItemWithPlottable(plots.objectiveGraph()));

    // A run whose objective is its task loss (pretrain) plots "loss" as before.
    plots.setRecords({{1, 1.7e9, {{"loss", 2.0}}}, {2, 1.7e9, {{"loss", 1.9}}}});
    QVERIFY(!plots.showsTaskLoss());
    QCOMPARE(plots.trainLossGraph()->data()->at(1)->value, 1.9);
    QCOMPARE(plots.trainLossGraph()->name(), QStringLiteral("train (logged)"));
    QVERIFY(plots.objectiveBox()->isHidden());
    QCOMPARE(plots.objectiveGraph()->dataCount(), 0);
  }

  void learningRateLabelsUseOneNotation() {
    // The axis once read "0.0001" beside "5·10⁻⁵".
    std::vector<engine::MetricsRecord> records;
    for (int64_t step = 1; step <= 100; ++step)
      records.push_back({step, 1.7e9, {{"loss", 1.0}, {"lr", 1e-4 - 9.5e-7 * double(step)}}});
    TrainingPlots plots;
    plots.resize(900, 600);
    plots.setRecords(records);
    QCustomPlot* lr = plots.plot(TrainingPlots::LearningRatePlot);
    lr->replot();
    const QVector<QString> labels = lr->yAxis->tickVectorLabels();
    QVERIFY(labels.size() >= 2);
    for (const QString& label : labels)
      QVERIFY2(label == "0" || label.contains('e'),
               qPrintable(QStringList(labels.begin(), labels.end()).join(" | ")));
  }

  void durationsAndRatesAreReadable() {
    QCOMPARE(TrainingView::durationText(12), QStringLiteral("12 s"));
    QCOMPARE(TrainingView::durationText(245), QStringLiteral("4 min 05 s"));
    QCOMPARE(TrainingView::durationText(3723), QStringLiteral("1 h 02 min"));
  }

  void aLongRunIsDrawnInBoundedMemory() {
    // Three times more logged steps than buckets: the line is decimated, its spike kept, and
    // the smoothed curve still follows the loss.
    TrainingPlots plots;
    constexpr int64_t kSteps = 3 * TrainingPlots::kMaxBuckets;
    std::vector<engine::MetricsRecord> batch;
    for (int64_t step = 1; step <= kSteps; ++step) {
      const double loss = step == 20000 ? 40.0 : 2.0 + 1.0 / std::sqrt(double(step));
      batch.push_back({step, 1.7e9 + double(step), {{"loss", loss}, {"lr", 1e-3}}});
      if (batch.size() == 1000 || step == kSteps) {  // as a live tail delivers them
        plots.appendRecords(batch);
        batch.clear();
      }
    }
    QCOMPARE(plots.recordCount(), kSteps);
    QCOMPARE(plots.lastStep(), kSteps);
    QCOMPARE(plots.trainLoss().stride(), int64_t{4});
    QCPGraph* train = plots.trainLossGraph();
    QVERIFY(train->dataCount() <= 2 * TrainingPlots::kMaxBuckets);
    QVERIFY(train->dataCount() >= TrainingPlots::kMaxBuckets / 2);
    QCOMPARE(train->data()->findBegin(20000, false)->value, 40.0);      // the spike, at its step
    QCOMPARE(plots.learningRateGraph()->dataCount(), int(kSteps / 4));  // flat: a point a bucket
    QCOMPARE(train->data()->constBegin()->key, 1.0);
    QCOMPARE((train->data()->constEnd() - 1)->key, double(kSteps));
    plots.setSmoothing(0);  // no smoothing: the bucket means
    QCPGraph* smoothed = plots.smoothedLossGraph();
    QCOMPARE(smoothed->dataCount(), int(plots.trainLoss().buckets().size()));
    QCOMPARE(smoothed->data()->at(0)->key, 2.5);  // steps 1..4
    QVERIFY(std::abs(smoothed->data()->at(0)->value -
                     (4 * 2.0 + 1 + 1 / std::sqrt(2.0) + 1 / std::sqrt(3.0) + 0.5) / 4) < 1e-12);
    // The weight is per logged step: a bucket of 4 decays like 4 steps, so the spike's echo one
    // bucket later is near the undecimated average's (a weight per bucket would give a third).
    plots.setSmoothing(0.9);
    QVector<double> raw;
    for (int64_t step = 1; step <= 20004; ++step)
      raw << (step == 20000 ? 40.0 : 2.0 + 1.0 / std::sqrt(double(step)));
    const double exact = smoothedSeries(raw, 0.9).back() - raw.back();
    const double echo = smoothed->data()->findBegin(20001, false)->value - raw.back();
    QVERIFY2(std::abs(echo - exact) < 0.2 * exact,
             qPrintable(QStringLiteral("%1 vs %2").arg(echo).arg(exact)));
    const double late = (smoothed->data()->constEnd() - 1)->value;
    QVERIFY2(std::abs(late - (2.0 + 1 / std::sqrt(double(kSteps)))) < 1e-3,
             qPrintable(QString::number(late, 'g', 10)));
  }

 private:
  QTemporaryDir m_root;
  QString m_corpus;
};

QTEST_MAIN(TrainingViewTest)
#include "training_view_test.moc"
