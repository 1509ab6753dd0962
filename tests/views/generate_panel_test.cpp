// The Generate panel end to end: a real (10-step) bridge run of the default model, 4 greedy
// tokens for one prompt through MainWindow's job — both panes hold the prompt and its
// continuation, the hybrid pane names l*, and the summary gives the latency ratio. Plus the
// token stream's order and a run that is not a bridge.

#include "generate_panel.h"

#include <QDir>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextEdit>

#include "bridge_fixture.h"
#include "common/error.h"
#include "features/bridge/bridge_feature.h"
#include "main_window.h"
#include "throw_away_settings.h"

using namespace strata;

namespace {

constexpr int kTimeoutMs = 30000;
const QString kPrompt = QStringLiteral("def add_7(x, y):");

}  // namespace

class GeneratePanelTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(m_root.isValid());
    test::useThrowAwaySettings(m_root);
    const QString corpus = m_root.filePath("code.txt");
    test::writeCodeCorpus(corpus);
    m_run = QDir::cleanPath(m_root.filePath("bridge-l2"));
    test::trainTinyBridge(m_run, corpus, 2);
  }

  void theTokenStreamKeepsTheOrderPushed() {
    TokenStream stream;
    stream.push({0, recipes::GenerationSide::Original, "a"});
    stream.push({0, recipes::GenerationSide::Hybrid, "b"});
    const auto pieces = stream.take();
    QCOMPARE(pieces.size(), 2u);
    QCOMPARE(pieces[1].text, std::string("b"));
    QVERIFY(stream.take().empty());
  }

  void comparesOriginalAndHybridContinuations() {
    MainWindow window(MainWindow::Options{false});
    QStringList errors;
    window.setErrorReporter([&](const ErrorReport& report) { errors << report.error; });
    window.feature<BridgeFeature>()->showGeneratePanel(m_run);
    GeneratePanel* panel = window.feature<BridgeFeature>()->generatePanel(m_run);
    QVERIFY(panel);
    QVERIFY2(panel->hybridTitle()->text().contains(QStringLiteral("l* = 2")),
             qPrintable(panel->hybridTitle()->text()));  // from run.json, before generating

    panel->promptsEdit()->setPlainText(kPrompt + QStringLiteral("\n\n"));  // blank lines skipped
    panel->maxTokensBox()->setValue(4);
    panel->temperatureBox()->setValue(0);
    panel->stepsBox()->setValue(2);
    QSignalSpy finished(window.feature<BridgeFeature>(), &BridgeFeature::generationFinished);
    panel->generateButton()->click();
    QVERIFY(panel->generating());
    QVERIFY(!panel->generateButton()->isEnabled() && panel->stopButton()->isEnabled());
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeoutMs);
    QVERIFY2(errors.isEmpty(), qPrintable(errors.join('\n')));
    QCOMPARE(finished.at(0).at(1).value<JobOutcome>(), JobOutcome::Succeeded);
    QVERIFY(!panel->generating());
    QCOMPARE(panel->streamedTokens(), 8);  // 4 a side, streamed before the final texts

    for (QTextEdit* pane : {panel->originalPane(), panel->hybridPane()}) {
      const QString text = pane->toPlainText();
      QVERIFY2(text.startsWith(kPrompt), qPrintable(text));
      QVERIFY2(text.size() > kPrompt.size(), qPrintable(text));  // a continuation follows
    }
    QVERIFY(panel->originalStats()->text().contains(QStringLiteral("ms/token")));
    QVERIFY(panel->hybridStats()->text().contains(QStringLiteral("Gen.PPL")));
    QVERIFY(panel->hybridStats()->text().contains(QStringLiteral("S = 2 DDIM steps")));
    const QString summary = panel->summaryLabel()->text();
    // A 16-wide bridge at S = 2 may well beat the 128-wide original: slower or faster.
    QVERIFY2(summary.contains(QRegularExpression(QStringLiteral("The hybrid is [0-9.]+× "
                                                                "(slower|faster) than"))),
             qPrintable(summary));
    QVERIFY2(summary.contains(QStringLiteral("ms/token")), qPrintable(summary));
    QVERIFY(panel->generateButton()->isEnabled());
  }

  void refusesARunThatIsNotABridge() {
    MainWindow window(MainWindow::Options{false});
    QStringList errors;
    window.setErrorReporter([&](const ErrorReport& report) { errors << report.error; });
    window.feature<BridgeFeature>()->showGeneratePanel(m_root.path());  // no run.json
    QCOMPARE(errors.size(), 1);
    QCOMPARE(window.tabs()->count(), 0);

    GeneratePanel panel(m_run);
    QVERIFY_THROWS_EXCEPTION(Error, panel.config());  // no prompt yet
  }

 private:
  QTemporaryDir m_root;
  QString m_run;
};

QTEST_MAIN(GeneratePanelTest)
#include "generate_panel_test.moc"
