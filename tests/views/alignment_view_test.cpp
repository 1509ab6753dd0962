// The Alignment tab on hand-made repr_align run folders (run.json + metrics.jsonl written with
// core's MetricsLogWriter, as the recipe writes them): per-layer curves and the heatmap hold
// exactly the logged cosines, a run without training cosines falls back to the evaluations',
// a second run is drawn dashed with its losses beside the first's, the view follows a growing
// log and reloads a truncated one, the exports, and every error reaches a dialog.
//
// Cosines are (base + 100·l + step) / 1000 with small integers, so each is the double nearest
// a short decimal and the CSV's text is known in advance.

#include "alignment_view.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QMessageBox>
#include <QPointer>
#include <QScreen>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>

#include "alignment_plots.h"
#include "common/error.h"
#include "display_text.h"
#include "engine/metrics_log.h"
#include "features/alignment/alignment_feature.h"
#include "main_window.h"
#include "plot_export.h"
#include "throw_away_settings.h"
#include "tick_labels.h"
#include "window_sizes.h"

using namespace strata;

namespace {

constexpr int kLayers = 3;  // hidden states 0..2: embeddings, one block, the final norm
constexpr int kSteps = 20;
constexpr int kTimeoutMs = 5000;  // the view polls every second

struct RunSpec {
  QString recipe = QStringLiteral("repr_align");
  QString lambda = QStringLiteral("10");
  bool trainingCosines = true;
  int validationBase = 500;  ///< val_align_cos_<l> = (base + 100 l + step) / 1000
  QString created = QStringLiteral("2026-01-01T10:00:00Z");
};

double trainingCosine(int layer, int64_t step) { return (300.0 + 100 * layer + step) / 1000; }
double validationCosine(int base, int layer, int64_t step) {
  return (base + 100.0 * layer + step) / 1000;
}
/** Step 5 of a run with training cosines lacks layer 2 (never assume every key is there). */
bool logged(int layer, int64_t step) { return !(step == 5 && layer == 2); }

void writeText(const QString& file, const QByteArray& text) {
  QFile out(file);
  QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
  QCOMPARE(out.write(text), text.size());
}

/** One training record (and an evaluation record every 10 steps, on its own line). */
void appendStep(engine::MetricsLogWriter& log, const RunSpec& spec, int64_t step) {
  engine::MetricsRecord train;
  train.step = step;
  train.wallTime = 1.7e9 + static_cast<double>(step);
  train.values = {{"loss", 3.0},      {"lr", 1e-4},         {"tokens_per_s", 900.0},
                  {"diff_loss", 2.5}, {"align_loss", 0.25}, {"masked_acc", 0.3}};
  if (spec.trainingCosines)
    for (int l = 0; l < kLayers; ++l)
      if (logged(l, step))
        train.values.emplace_back("align_cos_" + std::to_string(l), trainingCosine(l, step));
  log.append(train);
  if (step % 10 != 0) return;
  engine::MetricsRecord eval;
  eval.step = step;
  eval.wallTime = train.wallTime;
  eval.values = {{"val_loss", (3000.0 - 10 * static_cast<double>(step)) / 1000},
                 {"val_diff_loss", 2.0},
                 {"val_masked_acc", static_cast<double>(step) / 100}};
  for (int l = 0; l < kLayers; ++l)
    eval.values.emplace_back("val_align_cos_" + std::to_string(l),
                             validationCosine(spec.validationBase, l, step));
  log.append(eval);
}

/** A run folder as the engine leaves it: run.json with the resolved config, metrics.jsonl. */
void writeRun(const QString& folder, const RunSpec& spec, int steps = kSteps) {
  QVERIFY(QDir().mkpath(folder));
  const QString json = QStringLiteral(
      R"({"recipe": "%1", "created": "%2", "seed": 1, "config": {"steps": 20, "lambda": %3, )"
      R"("align_layers": "all", "freeze": "none"}})");
  writeText(folder + "/run.json", json.arg(spec.recipe, spec.created, spec.lambda).toUtf8());
  engine::MetricsLogWriter log(toFsPath(folder) / "metrics.jsonl");
  for (int64_t step = 1; step <= steps; ++step) appendStep(log, spec, step);
}

QByteArray readAll(const QString& file) {
  QFile in(file);
  return in.open(QIODevice::ReadOnly) ? in.readAll() : QByteArray();
}

/** Why a plot's title or legend entry is not drawn whole inside the plot (empty: it is). */
QString clipped(QCustomPlot* plot) {
  QStringList out;
  const QRect visible = plot->rect();
  if (auto* title = qobject_cast<QCPTextElement*>(plot->plotLayout()->element(0, 0))) {
    const QRect need =
        QFontMetrics(title->font()).boundingRect(QRect(), Qt::TextDontClip, title->text());
    if (need.width() > title->rect().width() || !visible.contains(title->outerRect()))
      out << QStringLiteral("title “%1” needs %2 px, has %3 px at x %4 of %5")
                 .arg(title->text())
                 .arg(need.width())
                 .arg(title->rect().width())
                 .arg(title->outerRect().left())
                 .arg(visible.width());
  }
  // The legend's frame is drawn on its outer rect, the right and bottom lines one pixel past it
  // (QPainter::drawRect with a 1 px pen): the whole frame lies inside the widget, or it is cut.
  if (const QRect frame = plot->legend->outerRect().adjusted(0, 0, 1, 1);
      plot->legend->visible() && !visible.contains(frame))
    out << QStringLiteral("legend frame %1 is cut by the plot's %2")
               .arg(testing::rectText(frame), testing::rectText(visible));
  if (plot->legend->visible())
    for (int i = 0; i < plot->legend->itemCount(); ++i) {
      auto* item = qobject_cast<QCPPlottableLegendItem*>(plot->legend->item(i));
      if (!item) continue;
      const QString name = item->plottable()->name();
      const int need = plot->legend->iconSize().width() + plot->legend->iconTextPadding() +
                       QFontMetrics(item->font()).horizontalAdvance(name);
      if (need > item->rect().width() || !visible.contains(item->outerRect()) ||
          !plot->legend->outerRect().contains(item->outerRect()))
        out << QStringLiteral("legend entry “%1” needs %2 px, has %3 px at (%4,%5) in %6×%7")
                   .arg(name)
                   .arg(need)
                   .arg(item->rect().width())
                   .arg(item->outerRect().left())
                   .arg(item->outerRect().top())
                   .arg(visible.width())
                   .arg(visible.height());
    }
  return out.join(QStringLiteral("; "));
}
}  // namespace

class AlignmentViewTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    test::useThrowAwaySettings(m_dir);
    m_l10 = m_dir.filePath("runs/align-l10");
    m_l0 = m_dir.filePath("runs/align-l0");
    m_l5 = m_dir.filePath("elsewhere/align-l5");
    m_pretrain = m_dir.filePath("runs/pretrain-a");
    writeRun(m_l10, {});
    writeRun(m_l0, {.lambda = "0",
                    .trainingCosines = false,
                    .validationBase = 400,
                    .created = "2026-01-01T09:00:00Z"});
    writeRun(m_l5, {.lambda = "5", .validationBase = 450});
    writeRun(m_pretrain, {.recipe = "pretrain", .created = "2026-01-01T11:00:00Z"});
    QVERIFY(QDir().mkpath(m_dir.filePath("not-a-run")));
  }

  void readsTheRunAndItsLambda() {
    const AlignmentRunInfo info = readAlignmentRun(m_l10);
    QCOMPARE(info.name, QStringLiteral("align-l10"));
    QCOMPARE(info.lambda, 10.0);
    QCOMPARE(info.label(), QStringLiteral("align-l10 (λ = 10)"));
    QVERIFY_THROWS_EXCEPTION(FormatError, readAlignmentRun(m_pretrain));
    QVERIFY_THROWS_EXCEPTION(IoError, readAlignmentRun(m_dir.filePath("not-a-run")));
    const QList<AlignmentRunInfo> runs = alignmentRunsIn(m_dir.filePath("runs"));
    QCOMPARE(runs.size(), 2);  // not the pretrain run
    QCOMPARE(runs[0].name, QStringLiteral("align-l10"));
    QCOMPARE(runs[0].lambda, 10.0);  // newest first
    QCOMPARE(runs[1].label(), QStringLiteral("align-l0 (λ = 0)"));
  }

  void curvesHaveOneGraphPerLayerWithTheLoggedCosines() {
    AlignmentView view(readAlignmentRun(m_l10));
    view.clearComparison();
    QCOMPARE(view.requestedSource(), CosineSource::Training);
    QCOMPARE(view.shownSource(), CosineSource::Training);
    QVERIFY(view.sourceNote()->isHidden());
    QCOMPARE(view.curvesPlot()->graphCount(), kLayers);
    QCOMPARE(view.curvesPlot()->legend->itemCount(), kLayers);
    for (int l = 0; l < kLayers; ++l) {
      QCPGraph* graph = view.curve(l);
      QVERIFY(graph);
      QCOMPARE(graph->name(), QStringLiteral("layer %1").arg(l));
      QCOMPARE(graph->pen().style(), Qt::SolidLine);
      QCOMPARE(graph->pen().color(), depthColour(l, kLayers));
      int point = 0;
      for (int64_t step = 1; step <= kSteps; ++step) {
        if (!logged(l, step)) continue;
        QCOMPARE(graph->data()->at(point)->key, static_cast<double>(step));
        QCOMPARE(graph->data()->at(point)->value, trainingCosine(l, step));
        ++point;
      }
      QCOMPARE(graph->dataCount(), point);
    }
    QCOMPARE(view.curve(2)->dataCount(), kSteps - 1);
    // Shallow to deep on a sequential map: darker to lighter.
    QVERIFY(view.curve(0)->pen().color().lightness() < view.curve(2)->pen().color().lightness());

    view.setRequestedSource(CosineSource::Validation);
    QCOMPARE(view.shownSource(), CosineSource::Validation);
    QCOMPARE(view.curvesPlot()->graphCount(), kLayers);
    for (int l = 0; l < kLayers; ++l) {
      QCOMPARE(view.curve(l)->dataCount(), 2);
      QCOMPARE(view.curve(l)->data()->at(1)->key, 20.0);
      QCOMPARE(view.curve(l)->data()->at(1)->value, validationCosine(500, l, 20));
    }
  }

  void heatmapCellsAreTheLoggedCosines() {
    AlignmentView view(readAlignmentRun(m_l10));
    view.clearComparison();
    QCPColorMapData* cells = view.cosineMap()->data();
    QCOMPARE(cells->keySize(), kSteps);
    QCOMPARE(cells->valueSize(), kLayers);
    for (int row = 0; row < kSteps; ++row)
      for (int l = 0; l < kLayers; ++l) {
        const int64_t step = row + 1;
        if (logged(l, step))
          QCOMPARE(cells->cell(row, l), trainingCosine(l, step));
        else
          QVERIFY(std::isnan(cells->cell(row, l)));
      }
    QCOMPARE(view.cosineMap()->dataRange().lower, trainingCosine(0, 1));
    QCOMPARE(view.cosineMap()->dataRange().upper, trainingCosine(2, kSteps));

    view.setRequestedSource(CosineSource::Validation);
    QCOMPARE(cells->keySize(), 2);
    for (int l = 0; l < kLayers; ++l) {
      QCOMPARE(cells->cell(0, l), validationCosine(500, l, 10));
      QCOMPARE(cells->cell(1, l), validationCosine(500, l, 20));
    }
  }

  void fallsBackToValidationWithoutTrainingCosines() {
    AlignmentView view(readAlignmentRun(m_l0));
    view.clearComparison();
    QCOMPARE(view.requestedSource(), CosineSource::Training);
    QCOMPARE(view.shownSource(), CosineSource::Validation);
    QVERIFY(!view.sourceNote()->isHidden());
    QVERIFY2(view.sourceNote()->text().contains("align-l0 (λ = 0)") &&
                 view.sourceNote()->text().contains("validation"),
             qPrintable(view.sourceNote()->text()));
    QCOMPARE(view.curvesPlot()->graphCount(), kLayers);
    QCOMPARE(view.curve(1)->dataCount(), 2);
    QCOMPARE(view.curve(1)->data()->at(0)->value, validationCosine(400, 1, 10));
    QCOMPARE(view.cosineMap()->data()->cell(1, 2), validationCosine(400, 2, 20));

    // A run that has training cosines, compared with one that has none: both show evaluations.
    AlignmentView compared(readAlignmentRun(m_l10));
    QVERIFY(compared.comparison());
    QCOMPARE(compared.shownSource(), CosineSource::Validation);
    QVERIFY(compared.sourceNote()->text().contains("align-l0"));
    QVERIFY(!compared.sourceNote()->text().contains("align-l10"));
  }

  void comparesWithAnotherRunDashedAndShowsBothLosses() {
    AlignmentView view(readAlignmentRun(m_l10));
    // Shown at once: the runs folder's other repr_align run, not the pretrain run.
    QVERIFY(view.comparison());
    QCOMPARE(view.comparison()->info().name, QStringLiteral("align-l0"));
    QComboBox* box = view.comparisonBox();
    QCOMPARE(box->currentText(), QStringLiteral("align-l0 (λ = 0)"));
    QCOMPARE(box->findText(QStringLiteral("pretrain-a"), Qt::MatchContains), -1);
    QCOMPARE(box->findText(QStringLiteral("align-l10"), Qt::MatchContains), -1);  // itself

    QCOMPARE(view.curvesPlot()->graphCount(), 2 * kLayers);
    QCOMPARE(view.curvesPlot()->legend->itemCount(), kLayers);
    for (int l = 0; l < kLayers; ++l) {
      QCPGraph* dashed = view.comparisonCurve(l);
      QVERIFY(dashed);
      QCOMPARE(dashed->pen().style(), Qt::DashLine);
      QCOMPARE(view.curve(l)->pen().style(), Qt::SolidLine);
      QCOMPARE(dashed->pen().color(), view.curve(l)->pen().color());
      QCOMPARE(dashed->dataCount(), 2);
      QCOMPARE(dashed->data()->at(1)->value, validationCosine(400, l, 20));
      QCOMPARE(view.curve(l)->data()->at(1)->value, validationCosine(500, l, 20));
    }

    QCustomPlot* losses = view.lossPlot();
    QCOMPARE(losses->graphCount(), 4);
    QStringList names;
    for (int i = 0; i < losses->graphCount(); ++i) names << losses->graph(i)->name();
    // Named by λ, which tells these runs apart (short: two runs' entries side by side).
    QVERIFY2(names.contains("λ = 10: val_loss") && names.contains("λ = 10: val_masked_acc") &&
                 names.contains("λ = 0: val_loss") && names.contains("λ = 0: val_masked_acc"),
             qPrintable(names.join(", ")));
    for (int i = 0; i < losses->graphCount(); ++i) {
      QCPGraph* graph = losses->graph(i);
      QCOMPARE(graph->dataCount(), 2);
      QCOMPARE(graph->pen().style(),
               graph->name().startsWith("λ = 0") ? Qt::DashLine : Qt::SolidLine);
      const bool accuracy = graph->name().endsWith("val_masked_acc");
      QCOMPARE(graph->valueAxis(), accuracy ? losses->yAxis2 : losses->yAxis);
      QCOMPARE(graph->data()->at(1)->value, accuracy ? 0.2 : 2.8);
    }

    // A run kept anywhere: listed and compared; training cosines now on both sides.
    QVERIFY(view.setComparisonRun(m_l5));
    QCOMPARE(view.comparison()->info().label(), QStringLiteral("align-l5 (λ = 5)"));
    QCOMPARE(box->currentText(), QStringLiteral("align-l5 (λ = 5)"));
    QCOMPARE(view.shownSource(), CosineSource::Training);
    QCOMPARE(view.comparisonCurve(0)->dataCount(), kSteps);
    QVERIFY(view.curvesPlot()->graph(0)->name() == "layer 0");
    QVERIFY(view.comparisonCurve(0)->name().startsWith("align-l5 (λ = 5)"));

    view.clearComparison();
    QCOMPARE(view.curvesPlot()->graphCount(), kLayers);
    QCOMPARE(view.lossPlot()->graphCount(), 2);
    QCOMPARE(box->currentIndex(), 0);
    view.poll();  // the user chose: no automatic comparison comes back
    QTRY_VERIFY(!view.listingCandidates());
    QVERIFY(!view.comparison());
  }

  void aPollListsTheRunsOnAWorkerAndOffersANewOne() {
    const QString root = m_dir.filePath("grows");
    writeRun(root + "/align-a", {});
    AlignmentView view(readAlignmentRun(root + "/align-a"));
    QVERIFY(!view.comparison());  // alone in its runs folder (listed at once when opened)
    writeRun(root + "/align-b", {.lambda = "2"});
    view.poll();
    // The poll returned before the listing: the box has not changed yet.
    QVERIFY(view.listingCandidates());
    QCOMPARE(view.comparisonBox()->findText(QStringLiteral("align-b"), Qt::MatchContains), -1);
    QTRY_VERIFY(view.comparison());  // the new run, picked as the user has not chosen
    QCOMPARE(view.comparison()->info().label(), QStringLiteral("align-b (λ = 2)"));
    QVERIFY(view.comparisonBox()->findText(QStringLiteral("align-b"), Qt::MatchContains) > 0);
    QVERIFY(!view.listingCandidates());
  }

  void followsAGrowingLogLive() {
    const QString run = m_dir.filePath("live/align-live");
    writeRun(run, {}, 10);
    AlignmentView view(readAlignmentRun(run));
    QVERIFY(!view.comparison());  // alone in its runs folder
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCOMPARE(view.curve(0)->dataCount(), 10);
    {
      engine::MetricsLogWriter log(toFsPath(run) / "metrics.jsonl");
      for (int64_t step = 11; step <= 20; ++step) appendStep(log, {}, step);
    }
    QTRY_COMPARE_WITH_TIMEOUT(view.curve(0)->dataCount(), 20, kTimeoutMs);  // the timer read it
    QCOMPARE(view.curve(0)->data()->at(19)->value, trainingCosine(0, 20));
    QCOMPARE(view.cosineMap()->data()->keySize(), 20);
    QCOMPARE(view.lossPlot()->graph(0)->dataCount(), 2);

    // A resume truncated the log (core's own truncation: a new file renamed over it).
    engine::truncateMetricsLog(toFsPath(run) / "metrics.jsonl", 10);
    QTRY_COMPARE_WITH_TIMEOUT(view.curve(0)->dataCount(), 10, kTimeoutMs);
    QCOMPARE(view.lossPlot()->graph(0)->dataCount(), 1);

    // Rewritten in place, shorter and with other values.
    {
      std::ofstream out(toFsPath(run) / "metrics.jsonl", std::ios::trunc);
      engine::MetricsRecord record;
      record.step = 1;
      record.values = {{"align_cos_0", 0.875}, {"align_cos_1", 0.75}, {"align_cos_2", 0.5}};
      out << engine::formatMetricsLine(record) << "\n";
    }
    QTRY_COMPARE_WITH_TIMEOUT(view.curve(0)->dataCount(), 1, kTimeoutMs);
    QCOMPARE(view.curve(0)->data()->at(0)->value, 0.875);
    QCOMPARE(view.cosineMap()->data()->cell(0, 2), 0.5);
    QCOMPARE(view.lossPlot()->graph(0)->dataCount(), 0);
  }

  void exportsTheTableAsCsvExactly() {
    AlignmentView view(readAlignmentRun(m_l10));
    view.clearComparison();
    const QString training = view.csvText();
    const QStringList lines = training.split('\n');
    QCOMPARE(lines.size(), kSteps + 2);  // header, 20 rows, the empty string after the last \n
    QCOMPARE(lines[0], QStringLiteral("step,align_cos_0,align_cos_1,align_cos_2"));
    QCOMPARE(lines[1], QStringLiteral("1,0.301,0.401,0.501"));
    QCOMPARE(lines[5], QStringLiteral("5,0.305,0.405,"));  // layer 2 not logged at step 5
    QCOMPARE(lines[10], QStringLiteral("10,0.31,0.41,0.51"));
    QCOMPARE(lines[20], QStringLiteral("20,0.32,0.42,0.52"));

    view.setRequestedSource(CosineSource::Validation);
    const QString file = m_dir.filePath("alignment.csv");
    view.saveCsv(file);
    QCOMPARE(readAll(file), QByteArray("step,val_align_cos_0,val_align_cos_1,val_align_cos_2\n"
                                       "10,0.51,0.61,0.71\n"
                                       "20,0.52,0.62,0.72\n"));
  }

  void exportsEveryPlotAsPngAndPdf() {
    AlignmentView view(readAlignmentRun(m_l10));
    const std::pair<QCustomPlot*, QString> plots[] = {{view.curvesPlot(), "curves"},
                                                      {view.heatmapPlot(), "heatmap"},
                                                      {view.lossPlot(), "losses"}};
    for (const auto& [plot, name] : plots) {
      const QString png = m_dir.filePath(name + ".png");
      const QString pdf = m_dir.filePath(name + ".pdf");
      savePlot(*plot, png);
      savePlot(*plot, pdf);
      QVERIFY2(readAll(png).startsWith("\x89PNG") && readAll(png).size() > 1000, qPrintable(png));
      QVERIFY2(readAll(pdf).startsWith("%PDF") && readAll(pdf).size() > 1000, qPrintable(pdf));
    }
  }

  void unreadableMetricsReachTheErrorDialogOnce() {
    const QString run = m_dir.filePath("broken/align-broken");
    QVERIFY(QDir().mkpath(run));
    // A link to itself: open() fails with ELOOP (as root too, unlike a mode of 000).
    std::filesystem::create_symlink("metrics.jsonl", toFsPath(run) / "metrics.jsonl");
    writeText(run + "/run.json",
              R"({"recipe": "repr_align", "created": "2026-01-01T10:00:00Z", "config": {}})");
    AlignmentView view(readAlignmentRun(run));  // no crash
    QCOMPARE(view.findChildren<QMessageBox*>("ErrorDialog").size(), 1);
    QPointer<QMessageBox> box = view.findChild<QMessageBox*>("ErrorDialog");
    QVERIFY(box->isVisible());  // open(), not exec(): the test goes on
    QVERIFY(box->text().contains("align-broken"));
    QVERIFY2(box->informativeText().contains("metrics.jsonl"), qPrintable(box->informativeText()));
    QCOMPARE(view.run().info().label(), QStringLiteral("align-broken"));  // no λ in its config
    view.poll();
    QCOMPARE(view.findChildren<QMessageBox*>("ErrorDialog").size(), 1);  // not again each second
    box->close();
    QTRY_VERIFY(box.isNull());
  }

  void comparingWithAFolderThatIsNotARunIsAnError() {
    AlignmentView view(readAlignmentRun(m_l10));
    const QString before = view.comparison()->info().folder;
    QVERIFY(!view.setComparisonRun(m_pretrain));
    QVERIFY(!view.setComparisonRun(m_l10));  // itself
    const QList<QMessageBox*> boxes = view.findChildren<QMessageBox*>("ErrorDialog");
    QCOMPARE(boxes.size(), 2);
    QVERIFY(boxes[0]->informativeText().contains("pretrain"));
    QVERIFY(boxes[1]->informativeText().contains("is the run shown"));
    for (QMessageBox* box : boxes) box->close();
    QCOMPARE(view.comparison()->info().folder, before);  // unchanged
    QCOMPARE(view.comparisonBox()->currentText(), QStringLiteral("align-l0 (λ = 0)"));
  }

  // Review 2026-12-05, defect 1: at 1100×700 and maximised, with two real-looking run names,
  // every title and legend entry is drawn whole, the loss plot has room and legible ticks.
  void plotsNameEveryLineUnclippedAtDefaultSizeAndMaximised_data() { testing::addWindowSizeRows(); }
  void plotsNameEveryLineUnclippedAtDefaultSizeAndMaximised() {
    QFETCH(bool, maximised);
    QFETCH(QSize, size);
    const QString root = m_dir.filePath("real");
    const QString shown = root + "/repr_align-20261205-111939";
    writeRun(shown, {.lambda = "0", .created = "2026-12-05T11:19:39Z"}, 60);
    writeRun(root + "/repr_align-20261205-111908", {.created = "2026-12-05T11:19:08Z"}, 60);
    MainWindow window(MainWindow::Options{false});
    window.feature<AlignmentFeature>()->showAlignment(shown);
    AlignmentView* view = window.feature<AlignmentFeature>()->alignmentView(shown);
    QVERIFY(view);
    QVERIFY(view->comparison());
    if (const QString skip = testing::showForRow(window, maximised); !skip.isEmpty())
      QSKIP(qPrintable(skip));
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    if (size.isValid()) window.resize(size);
    QTest::qWait(300);
    if (!maximised) QCOMPARE(window.size(), size.isValid() ? size : QSize(1100, 700));
    for (QCustomPlot* plot : {view->curvesPlot(), view->heatmapPlot(), view->lossPlot()}) {
      plot->replot(QCustomPlot::rpImmediateRefresh);
      QVERIFY2(clipped(plot).isEmpty(), qPrintable(clipped(plot)));
    }
    QCOMPARE(view->curvesPlot()->legend->itemCount(), kLayers);
    QCustomPlot* losses = view->lossPlot();
    QCOMPARE(losses->legend->itemCount(), losses->graphCount());  // every line named
    QVERIFY2(losses->axisRect()->width() >= 150 && losses->axisRect()->height() >= 80,
             qPrintable(QStringLiteral("loss axes %1×%2 px")
                            .arg(losses->axisRect()->width())
                            .arg(losses->axisRect()->height())));
    for (QCPAxis* axis : {losses->xAxis, losses->yAxis, losses->yAxis2})
      QVERIFY2(testing::crowdedTickLabels(axis).isEmpty(),
               qPrintable(testing::crowdedTickLabels(axis)));
  }

  // A constant accuracy (0 at two evaluations, as in a short run) drew its axis from −2 to 2;
  // the axes follow the values, and accuracy stays a fraction.
  void theAccuracyAxisStaysAFractionAndAFlatSeriesGetsABandAroundIt() {
    for (const double accuracy : {0.0, 0.45, 1.0}) {
      AlignmentTable table;
      std::vector<engine::MetricsRecord> records;
      for (const int64_t step : {10, 20})
        records.push_back(
            {step,
             1.7e9,
             {{"val_loss", 3.06}, {"val_masked_acc", accuracy}, {"val_diff_loss", 2}}});
      table.append(records);
      std::unique_ptr<QCustomPlot> plot(makeLossComparisonPlot(nullptr));
      drawLossComparison(*plot, {AlignmentCurvesRun{&table, QStringLiteral("run")}});
      const QCPRange fraction = plot->yAxis2->range(), loss = plot->yAxis->range();
      const QString where = QStringLiteral("accuracy %1: axis %2..%3, loss axis %4..%5")
                                .arg(accuracy)
                                .arg(fraction.lower)
                                .arg(fraction.upper)
                                .arg(loss.lower)
                                .arg(loss.upper);
      QVERIFY2(fraction.lower >= -0.05 && fraction.upper <= 1.05, qPrintable(where));
      QVERIFY2(fraction.contains(accuracy) && fraction.size() >= 0.05, qPrintable(where));
      QVERIFY2(loss.contains(3.06) && loss.size() < 1, qPrintable(where));
    }
  }

  void mainWindowOpensTheTabOfAReprAlignRunOnly() {
    MainWindow window(MainWindow::Options{false});
    QStringList errors;
    window.setErrorReporter([&errors](const ErrorReport& report) { errors << report.error; });
    window.feature<AlignmentFeature>()->showAlignment(m_dir.filePath("not-a-run"));
    window.feature<AlignmentFeature>()->showAlignment(m_pretrain);
    QCOMPARE(errors.size(), 2);
    QVERIFY2(errors[0].contains("no run.json"), qPrintable(errors[0]));
    QVERIFY2(errors[1].contains("pretrain run, not a repr_align run"), qPrintable(errors[1]));
    QCOMPARE(window.tabs()->count(), 0);

    window.feature<AlignmentFeature>()->showAlignment(m_l10);
    AlignmentView* view = window.feature<AlignmentFeature>()->alignmentView(m_l10);
    QVERIFY(view);
    QCOMPARE(window.tabs()->currentWidget(), view);
    QCOMPARE(window.tabs()->tabText(0), QStringLiteral("Alignment — align-l10"));
    window.feature<AlignmentFeature>()->showAlignment(m_l10);  // focuses the open tab
    QCOMPARE(window.tabs()->count(), 1);
    QCOMPARE(errors.size(), 2);
  }

 private:
  QTemporaryDir m_dir;
  QString m_l10, m_l0, m_l5, m_pretrain;
};

QTEST_MAIN(AlignmentViewTest)
#include "alignment_view_test.moc"
