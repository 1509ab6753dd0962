// The Chunk routing view on a real tiny dcdm run (20 steps, K = 4, checkpoints at 10 and 20):
// a typed text is routed in the background and shown as a coloured token strip with the K
// affinities per token, a K×T heatmap, the 2T×2T training mask and the per-chunk load from
// metrics.jsonl; the checkpoint slider re-routes with older weights; the CSV export. Before a
// text is routed the view says what to do (no empty heatmaps); the load plot's legend stays off
// the curves; a text past the run's seq_len is cut and says so; the corpus picker starts at the
// run's corpus; the heatmap names the token under the pointer.

#include "chunk_routing_view.h"

#include <qcustomplot.h>

#include <QFile>
#include <QFileDialog>
#include <QHelpEvent>
#include <QLabel>
#include <QSignalSpy>
#include <QSlider>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QToolButton>
#include <QToolTip>
#include <fstream>
#include <map>
#include <random>

#include "common/job.h"
#include "display_text.h"
#include "engine/metrics_log.h"
#include "engine/recipe_catalog.h"
#include "engine/training_run.h"
#include "features/routing/routing_feature.h"
#include "job_progress_widget.h"
#include "main_window.h"
#include "throw_away_settings.h"
#include "token_strip.h"
#include "window_sizes.h"

using namespace strata;

namespace {

constexpr int kTimeoutMs = 30000;

void writeCorpus(const std::filesystem::path& file) {
  const char* subjects[] = {"the cat", "a dog", "the old fox", "my friend"};
  const char* verbs[] = {"sees", "likes", "follows", "finds"};
  const char* objects[] = {"the ball.", "a red hat.", "the small bird.", "its shadow."};
  std::mt19937 rng(7);
  std::ofstream out(file);
  for (int doc = 0; doc < 120; ++doc) {
    for (int s = 0; s < 4; ++s)
      out << subjects[rng() % 4] << " " << verbs[rng() % 4] << " " << objects[rng() % 4] << " ";
    out << "\n\n";
  }
}

/** Token position → its character format, read from the strip's document. */
std::map<int, QTextCharFormat> tokenFormats(const TokenStrip& strip) {
  std::map<int, QTextCharFormat> formats;
  for (QTextBlock block = strip.document()->begin(); block.isValid(); block = block.next())
    for (auto it = block.begin(); !it.atEnd(); ++it) {
      const QTextCharFormat format = it.fragment().charFormat();
      if (format.hasProperty(TokenStrip::kTokenProperty))
        formats[format.intProperty(TokenStrip::kTokenProperty)] = format;
    }
  return formats;
}

/** The document position where token `position` starts. */
int tokenStart(const TokenStrip& strip, int position) {
  for (QTextBlock block = strip.document()->begin(); block.isValid(); block = block.next())
    for (auto it = block.begin(); !it.atEnd(); ++it)
      if (it.fragment().charFormat().intProperty(TokenStrip::kTokenProperty) == position &&
          it.fragment().charFormat().hasProperty(TokenStrip::kTokenProperty))
        return it.fragment().position();
  return -1;
}

}  // namespace

class ChunkRoutingViewTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    test::useThrowAwaySettings(m_dir);
    const std::filesystem::path root = toFsPath(m_dir.path());
    writeCorpus(root / "corpus.txt");
    engine::ResolvedConfig c(engine::recipeSchema("dcdm"));
    c.set("corpus", (root / "corpus.txt").string());
    c.set("variant", std::string("dcdm"));
    for (const auto& [key, value] : std::map<std::string, int64_t>{{"steps", 20},
                                                                   {"batch", 4},
                                                                   {"seq_len", 32},
                                                                   {"dim", 32},
                                                                   {"layers", 1},
                                                                   {"heads", 2},
                                                                   {"mlp", 64},
                                                                   {"chunks", 4},
                                                                   {"subspace_rank", 2},
                                                                   {"checkpoint_every", 10},
                                                                   {"eval_every", 10},
                                                                   {"log_every", 1},
                                                                   {"threads", 1}})
      c.set(key, value);
    NullProgressSink sink;
    JobContext job(sink, CancellationToken());
    engine::TrainingRequest request;
    request.recipe = "dcdm";
    request.config = c;
    request.runFolder = root / "run";
    engine::startTraining(request, job);
    m_run = toQString(root / "run");
    m_corpus = toQString(root / "corpus.txt");
  }

  void saysWhatToDoBeforeATextIsRouted() {
    ChunkRoutingView view(m_run);
    view.resize(1000, 700);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    // No heatmap or mask on made-up axes: the empty state says what to do instead.
    QVERIFY(view.emptyState()->isVisible());
    QVERIFY(view.emptyState()->text().contains(QStringLiteral("Pick from Corpus")));
    QVERIFY(view.emptyState()->text().contains(QStringLiteral("Type a sequence")));
    QVERIFY(view.emptyState()->text().contains(QStringLiteral("sequences of 32 tokens")));
    QVERIFY(!view.assignmentPlot()->isVisible());
    QVERIFY(!view.maskPlot()->isVisible());
    QVERIFY(!view.tokenStrip()->isVisible());
    QVERIFY(view.loadPlot()->isVisible());  // the run's metrics are there without a text

    QSignalSpy routed(&view, &ChunkRoutingView::routed);
    view.setText(QStringLiteral("the cat sees the ball."));
    QTRY_VERIFY_WITH_TIMEOUT(routed.count() == 1, kTimeoutMs);
    QVERIFY(!view.emptyState()->isVisible());
    QVERIFY(view.assignmentPlot()->isVisible());
    QVERIFY(view.maskPlot()->isVisible());
    QVERIFY(view.tokenStrip()->isVisible());

    view.setText(QString());  // an emptied box goes back to saying what to do
    QVERIFY(view.emptyState()->isVisible());
    QVERIFY(!view.assignmentPlot()->isVisible());
    QVERIFY(!view.report());
  }

  void theChunkLoadLegendStaysOffTheCurves_data() { strata::testing::addWindowSizeRows(); }
  void theChunkLoadLegendStaysOffTheCurves() {
    QFETCH(bool, maximised);
    QFETCH(QSize, size);
    MainWindow window(MainWindow::Options{false});
    window.feature<RoutingFeature>()->showChunkRouting(m_run);
    ChunkRoutingView* view = window.feature<RoutingFeature>()->chunkRoutingView(m_run);
    QVERIFY(view);
    QSignalSpy routed(view, &ChunkRoutingView::routed);
    view->setText(QStringLiteral("the cat sees the ball. a dog likes its shadow."));
    QTRY_VERIFY_WITH_TIMEOUT(routed.count() == 1, kTimeoutMs);
    if (const QString skip = strata::testing::showForRow(window, maximised); !skip.isEmpty())
      QSKIP(qPrintable(skip));
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    if (!size.isEmpty()) window.resize(size);
    QTest::qWait(50);
    QCustomPlot* plot = view->loadPlot();
    QVERIFY(plot->isVisible());
    plot->replot();
    QVERIFY(plot->legend->visible());
    const QRect legend = plot->legend->outerRect();
    const QRect data = plot->axisRect()->rect();
    QVERIFY2(!legend.intersects(data), qPrintable(QStringLiteral("legend %1 over the data %2")
                                                      .arg(strata::testing::rectText(legend),
                                                           strata::testing::rectText(data))));
    QVERIFY(plot->rect().contains(legend));  // and not cut off either
    QVERIFY(data.width() > legend.width());  // the curves keep most of the plot
  }

  void aTextLongerThanTheTrainedSeqLenIsCutAndSaysSo() {
    ChunkRoutingView view(m_run);
    view.show();
    QSignalSpy routed(&view, &ChunkRoutingView::routed);
    // The test's tokenizer spends about a token a character: far more than seq_len = 32.
    view.setText(
        QStringLiteral("the cat sees the ball. a dog likes its shadow. the old fox "
                       "follows a red hat. my friend finds the small bird."));
    QTRY_VERIFY_WITH_TIMEOUT(routed.count() == 1, kTimeoutMs);
    QCOMPARE(view.report()->trainedSeqLen, int64_t{32});
    QCOMPARE(view.report()->tokenIds.size(), size_t{32});
    QVERIFY(view.report()->textTokens > 32);
    QVERIFY(view.lengthNote()->isVisible());
    QVERIFY(view.lengthNote()->text().contains(
        QStringLiteral("The text has %1 tokens").arg(view.report()->textTokens)));
    QVERIFY(view.lengthNote()->text().contains(QStringLiteral("only its first 32 tokens")));

    view.setText(QStringLiteral("the cat."));  // short enough: no note
    QTRY_VERIFY_WITH_TIMEOUT(routed.count() == 2, kTimeoutMs);
    QVERIFY(view.report()->textTokens <= 32);
    QVERIFY(!view.lengthNote()->isVisible());
  }

  void theCorpusPickerStartsAtTheRunsCorpus() {
    ChunkRoutingView view(m_run);
    view.show();
    QCOMPARE(view.runCorpus(), m_corpus);
    view.pickFromCorpus();
    auto* dialog = view.findChild<QFileDialog*>();
    QVERIFY(dialog);
    QCOMPARE(dialog->directory().absolutePath(), QFileInfo(m_corpus).absolutePath());
    QCOMPARE(dialog->selectedFiles(), QStringList{m_corpus});
    QSignalSpy routed(&view, &ChunkRoutingView::routed);
    static_cast<QDialog*>(dialog)->accept();  // the corpus as selected: a paragraph is routed
    QVERIFY(!view.text().isEmpty());
    QFile corpus(m_corpus);
    QVERIFY(corpus.open(QIODevice::ReadOnly));
    QVERIFY(QString::fromUtf8(corpus.readAll()).contains(view.text()));
    QTRY_VERIFY_WITH_TIMEOUT(routed.count() == 1, kTimeoutMs);
  }

  void theHeatmapNamesTheTokenUnderThePointer() {
    ChunkRoutingView view(m_run);
    QSignalSpy routed(&view, &ChunkRoutingView::routed);
    view.resize(900, 800);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setText(QStringLiteral("a dog likes its shadow."));
    QTRY_VERIFY_WITH_TIMEOUT(routed.count() == 1, kTimeoutMs);
    QCustomPlot* plot = view.assignmentPlot();
    plot->replot();
    const auto report = view.report();
    const int64_t chunk = report->chunkIds[3];
    const QPoint at(static_cast<int>(plot->xAxis->coordToPixel(3.2)),
                    static_cast<int>(plot->yAxis->coordToPixel(static_cast<double>(chunk))));
    const QString tip = view.assignmentToolTipAt(at);
    QCOMPARE(tip, TokenStrip::tokenToolTip(*report, 3));
    QVERIFY(tip.startsWith(QStringLiteral("position 3 — chunk %1 — “").arg(chunk)));
    QHelpEvent hover(QEvent::ToolTip, at, plot->mapToGlobal(at));
    QCoreApplication::sendEvent(plot, &hover);
    QCOMPARE(QToolTip::text(), tip);
    QVERIFY(view.assignmentToolTipAt(QPoint(1, 1)).isEmpty());  // off the cells
  }

  void routesTypedTextAndShowsItFourWays() {
    ChunkRoutingView view(m_run);
    QSignalSpy routed(&view, &ChunkRoutingView::routed);
    view.setText(QStringLiteral("the cat sees the ball. a dog likes its shadow."));
    QTRY_VERIFY_WITH_TIMEOUT(routed.count() >= 1, kTimeoutMs);
    const auto report = view.report();
    QVERIFY(report);
    QCOMPARE(report->chunks, int64_t{4});
    QCOMPARE(report->checkpointStep, int64_t{20});
    const int tokens = static_cast<int>(report->tokenIds.size());
    QVERIFY(tokens > 4);

    // Token strip: one coloured token per token, its tooltip lists the 4 affinities.
    const auto formats = tokenFormats(*view.tokenStrip());
    QCOMPARE(static_cast<int>(formats.size()), tokens);
    for (const auto& [position, format] : formats) {
      const int64_t chunk = report->chunkIds[static_cast<size_t>(position)];
      QCOMPARE(format.background().color(), TokenStrip::chunkColour(chunk, 4));
      QCOMPARE(format.toolTip().count(QStringLiteral("affinity")), 4);
    }

    // Hovering token 1 shows its tooltip.
    TokenStrip* strip = view.tokenStrip();
    view.resize(900, 800);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const int start = tokenStart(*strip, 1);
    QVERIFY(start >= 0);
    QTextCursor before(strip->document());
    before.setPosition(start);
    QTextCursor after(strip->document());
    after.setPosition(start + 1);
    const QPoint at((strip->cursorRect(before).left() + strip->cursorRect(after).left()) / 2,
                    strip->cursorRect(before).center().y());
    QCOMPARE(strip->toolTipAt(at), TokenStrip::tokenToolTip(*report, 1));
    QHelpEvent hover(QEvent::ToolTip, at, strip->viewport()->mapToGlobal(at));
    QCoreApplication::sendEvent(strip->viewport(), &hover);
    QCOMPARE(QToolTip::text(), TokenStrip::tokenToolTip(*report, 1));

    // K×T assignment heatmap and the T×T chunk-causal mask.
    QCOMPARE(view.assignmentMap()->data()->keySize(), tokens);
    QCOMPARE(view.assignmentMap()->data()->valueSize(), 4);
    QCOMPARE(view.assignmentMap()->data()->cell(1, 2),
             static_cast<double>(report->assignments[1][2]));
    // The 2T×2T training mask, checked against BD3-LM's rule over the report's chunk ids
    // written out here: noisy→noisy same chunk, noisy→clean earlier chunks, clean→clean
    // chunks ≤ its own, clean→noisy never.
    QCOMPARE(view.maskMap()->data()->keySize(), 2 * tokens);
    QCOMPARE(view.maskMap()->data()->valueSize(), 2 * tokens);
    for (int q = 0; q < 2 * tokens; ++q)
      for (int k = 0; k < 2 * tokens; ++k) {
        const bool cleanQuery = q >= tokens, cleanKey = k >= tokens;
        const int64_t cq = report->chunkIds[static_cast<size_t>(q % tokens)];
        const int64_t ck = report->chunkIds[static_cast<size_t>(k % tokens)];
        const bool allowed = cleanQuery ? (cleanKey && ck <= cq) : (cleanKey ? ck < cq : ck == cq);
        QCOMPARE(view.maskMap()->data()->cell(k, q), allowed ? 1.0 : 0.0);
      }

    // Per-chunk load from metrics.jsonl: evaluations at steps 10 and 20.
    QCOMPARE(view.loadPlot()->graphCount(), 4);
    for (int k = 0; k < 4; ++k) QCOMPARE(view.loadPlot()->graph(k)->dataCount(), 2);
    QCOMPARE(view.loadPlot()->graph(0)->data()->at(0)->key, 10.0);

    // CSV export.
    const QString csv = m_dir.filePath(QStringLiteral("routing.csv"));
    view.saveCsv(csv);
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(file.readLine().startsWith("position,token_id,token,chunk,affinity_0"));
  }

  void sliderReroutesWithAnOlderCheckpoint() {
    ChunkRoutingView view(m_run);
    QSignalSpy routed(&view, &ChunkRoutingView::routed);
    QSlider* slider = view.checkpointSlider();
    QCOMPARE(slider->minimum(), 0);
    QCOMPARE(slider->maximum(), 1);
    QCOMPARE(view.selectedStep(), int64_t{20});
    view.setText(QStringLiteral("my friend finds the small bird."));
    QTRY_VERIFY_WITH_TIMEOUT(routed.count() >= 1, kTimeoutMs);
    slider->setValue(0);
    QCOMPARE(view.selectedStep(), int64_t{10});
    QTRY_VERIFY_WITH_TIMEOUT(view.report() && view.report()->checkpointStep == 10, kTimeoutMs);
  }

  void mainWindowOpensTheTabOfADcdmRunOnly() {
    MainWindow window(MainWindow::Options{false});
    QStringList errors;
    window.setErrorReporter([&errors](const ErrorReport& report) { errors << report.summary; });
    window.feature<RoutingFeature>()->showChunkRouting(m_run);
    QVERIFY(window.feature<RoutingFeature>()->chunkRoutingView(m_run));
    QCOMPARE(window.tabs()->currentWidget(),
             window.feature<RoutingFeature>()->chunkRoutingView(m_run));
    window.feature<RoutingFeature>()->showChunkRouting(m_dir.path());  // not a run folder
    QCOMPARE(errors.size(), 1);
  }

  void theTabsRoutingsAreJobsOfTheWindow() {
    // The window's busy() and its status bar see the tab's routing, like every other job.
    MainWindow window(MainWindow::Options{false});
    window.feature<RoutingFeature>()->showChunkRouting(m_run);
    ChunkRoutingView* view = window.feature<RoutingFeature>()->chunkRoutingView(m_run);
    QVERIFY(view);
    QSignalSpy routed(view, &ChunkRoutingView::routed);
    QSignalSpy idle(&window, &MainWindow::jobsFinished);
    QVERIFY(!window.busy());
    view->setText(QStringLiteral("the cat sees the ball."));  // starts the job at once
    QVERIFY(window.busy());
    QVERIFY(!window.jobProgress()->isHidden());
    QTRY_VERIFY_WITH_TIMEOUT(routed.count() == 1, kTimeoutMs);
    QCOMPARE(idle.count(), 1);
    QVERIFY(!window.busy());
  }

  void loadPlotFollowsAGrowingMetricsLog() {
    ChunkRoutingView view(m_run);
    QCOMPARE(view.loadPlot()->graph(0)->dataCount(), 2);
    engine::MetricsRecord record;
    record.step = 30;
    for (int k = 0; k < 4; ++k)
      record.values.emplace_back("val_chunk_share_" + std::to_string(k), 0.25);
    std::ofstream(toFsPath(m_run) / "metrics.jsonl", std::ios::app)
        << engine::formatMetricsLine(record) << "\n";
    view.poll();
    for (int k = 0; k < 4; ++k) QCOMPARE(view.loadPlot()->graph(k)->dataCount(), 3);
    QCOMPARE(view.loadPlot()->graph(3)->data()->at(2)->key, 30.0);
  }

  void routingShowsABusyBarAndCanBeCancelled() {
    ChunkRoutingView view(m_run);
    QSignalSpy routed(&view, &ChunkRoutingView::routed);
    QSignalSpy cancelled(&view, &ChunkRoutingView::routingCancelled);
    QVERIFY(view.routingProgress()->isHidden());
    view.setText(QStringLiteral("the cat sees the ball."));  // starts the job at once
    QVERIFY(!view.routingProgress()->isHidden());
    QVERIFY(view.routingProgress()->job());
    QVERIFY(view.routingProgress()->cancelButton()->isEnabled());
    QTest::mouseClick(view.routingProgress()->cancelButton(), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(cancelled.count(), 1, kTimeoutMs);
    QCOMPARE(routed.count(), 0);
    QVERIFY(!view.report());  // the cancelled result is not shown
    QVERIFY(view.routingProgress()->isHidden());

    view.setText(QStringLiteral("a dog likes its shadow."));  // the next routing runs normally
    QTRY_COMPARE_WITH_TIMEOUT(routed.count(), 1, kTimeoutMs);
    QVERIFY(view.report());
  }

  void picksAParagraphOfTheCorpus() {
    const QString text = QStringLiteral("title\n\nthe cat sees the ball.\n\n  \n\na dog likes it.");
    QCOMPARE(ChunkRoutingView::pickParagraph(text, 0), QStringLiteral("the cat sees the ball."));
    QCOMPARE(ChunkRoutingView::pickParagraph(text, 1), QStringLiteral("a dog likes it."));
  }

 private:
  QTemporaryDir m_dir;
  QString m_run;
  QString m_corpus;
};

QTEST_MAIN(ChunkRoutingViewTest)
#include "chunk_routing_view_test.moc"
