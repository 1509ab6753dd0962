// The Chunk routing view on a real tiny dcdm run (20 steps, K = 4, checkpoints at 10 and 20):
// a typed text is routed in the background and shown as a coloured token strip with the K
// affinities per token, a K×T heatmap, the 2T×2T training mask and the per-chunk load from
// metrics.jsonl; the checkpoint slider re-routes with older weights; the CSV export.

#include "chunk_routing_view.h"

#include <qcustomplot.h>

#include <QFile>
#include <QHelpEvent>
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
};

QTEST_MAIN(ChunkRoutingViewTest)
#include "chunk_routing_view_test.moc"
