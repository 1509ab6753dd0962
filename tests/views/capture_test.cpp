// Capture…: the dialog's form (validation, the config it produces, remembered settings) and
// the main window running a real capture of a tiny runnable Llama in a background job.

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QRadioButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QToolButton>
#include <QTreeWidget>

#include "capture_dialog.h"
#include "display_text.h"
#include "features/capture/capture_feature.h"
#include "features/open/open_feature.h"
#include "job_progress_widget.h"
#include "log_dock.h"
#include "main_window.h"
#include "project_dock.h"
#include "runnable_model_fixture.h"
#include "throw_away_settings.h"

using namespace strata;

namespace {
constexpr int kTimeoutMs = 30000;  // a failing QTRY waits 3× this: stay under CTest's 120 s
}

class CaptureTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(m_root.isValid());
    test::useThrowAwaySettings(m_root);
    qputenv("STRATA_DATA_DIR", QFile::encodeName(m_root.filePath("data")));  // proposed stores
    m_model = m_root.filePath("runnable-llama");
    test::writeRunnableLlamaFolder(m_model);
    m_corpus = m_root.filePath("words.txt");
    test::writeWordCorpus(m_corpus);
  }

  void dialogKeepsOkDisabledUntilThePathsAreValid() {
    CaptureDialog dialog(m_model);
    QVERIFY(dialog.findChild<QLabel*>("model")->text().contains("runnable-llama"));
    QVERIFY(!dialog.okButton()->isEnabled());  // no corpus yet

    dialog.corpusEdit()->setText(m_root.filePath("no-such-corpus.txt"));
    QVERIFY(!dialog.okButton()->isEnabled());

    dialog.corpusEdit()->setText(m_corpus);
    QCOMPARE(dialog.outputEdit()->text(),
             m_root.filePath("data/activation-stores/runnable-llama-words.h5"));  // the default
    QVERIFY(dialog.okButton()->isEnabled());

    dialog.setOutput(m_root.filePath("missing-folder/out.h5"));
    QVERIFY(!dialog.okButton()->isEnabled());
    dialog.setOutput(m_root.filePath("out.txt"));
    QVERIFY(!dialog.okButton()->isEnabled());
    dialog.setOutput(m_root.filePath("out.h5"));
    QVERIFY(dialog.okButton()->isEnabled());
    QVERIFY(dialog.existingOutputBox()->isHidden());  // nothing to resume or overwrite
  }

  void theProposedOutputGoesToStratasDataFolderNotBesideTheCorpus() {
    // A corpus in a read-only shared folder: the store must not be proposed next to it.
    const QString shared = m_root.filePath("shared-readonly");
    QVERIFY(QDir().mkpath(shared));
    const QString corpus = shared + QStringLiteral("/wiki.train.txt");
    QVERIFY(QFile::copy(m_corpus, corpus));
    QVERIFY(QFile::setPermissions(shared, QFileDevice::ReadOwner | QFileDevice::ExeOwner));
    const QString stores = m_root.filePath("data/activation-stores");
    QCOMPARE(CaptureDialog::storesFolder(), stores);

    CaptureDialog dialog(m_model);
    dialog.setCorpus(corpus);
    const QString proposed = dialog.outputEdit()->text();
    QCOMPARE(proposed, stores + QStringLiteral("/runnable-llama-wiki.train.h5"));
    QVERIFY2(!proposed.startsWith(shared), qPrintable(proposed));
    QVERIFY2(dialog.okButton()->isEnabled(), qPrintable(proposed));  // made when it starts

    // Capturing into it makes the folder.
    dialog.tokensBox()->setValue(100);
    dialog.sequenceLengthBox()->setValue(16);
    MainWindow window(MainWindow::Options{.persistSettings = false});
    openModel(window);
    QSignalSpy captured(window.feature<CaptureFeature>(), &CaptureFeature::captureFinished);
    window.feature<CaptureFeature>()->startCapture(dialog.config());
    QTRY_COMPARE_WITH_TIMEOUT(captured.count(), 1, kTimeoutMs);
    QCOMPARE(captured.first().at(1).value<JobOutcome>(), JobOutcome::Succeeded);
    QVERIFY(QFileInfo(proposed).isFile());
    QVERIFY(QFile::setPermissions(
        shared, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner));
  }

  void dialogConfigCarriesTheEnteredValues() {
    CaptureDialog dialog(m_model);
    QCOMPARE(dialog.tokensBox()->value(), 8192);
    QCOMPARE(dialog.sequenceLengthBox()->value(), 128);
    QCOMPARE(dialog.skipFirstBox()->value(), 1);
    QCOMPARE(dialog.seedBox()->value(), 0);
    QCOMPARE(dialog.dtypeBox()->currentText(), QStringLiteral("float16"));

    dialog.setCorpus(m_corpus);
    dialog.setOutput(m_root.filePath("chosen.h5"));
    dialog.tokensBox()->setValue(100);
    dialog.sequenceLengthBox()->setValue(16);
    dialog.skipFirstBox()->setValue(2);
    dialog.seedBox()->setValue(7);
    dialog.dtypeBox()->setCurrentText("float32");
    dialog.streamLayersBox()->setChecked(true);
    const engine::CaptureConfig config = dialog.config();
    QCOMPARE(toQString(config.modelFolder), m_model);
    QCOMPARE(toQString(config.corpus), m_corpus);
    QCOMPARE(toQString(config.output), m_root.filePath("chosen.h5"));
    QCOMPARE(config.sampling.tokenBudget, 100);
    QCOMPARE(config.sampling.sequenceLength, 16);
    QCOMPARE(config.sampling.skipFirstPositions, 2);
    QCOMPARE(config.sampling.seed, uint64_t{7});
    QVERIFY(config.dtype == io::StoreDType::Float32);
    QVERIFY(config.streamLayers);
    QVERIFY(!config.resume && !config.overwrite);

    dialog.skipFirstBox()->setValue(16);  // every stored position skipped
    QVERIFY(!dialog.okButton()->isEnabled());
  }

  void dialogAsksToResumeOrOverwriteAnExistingOutput() {
    const QString existing = m_root.filePath("existing.h5");
    QFile file(existing);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.close();
    CaptureDialog dialog(m_model);
    dialog.setCorpus(m_corpus);
    dialog.setOutput(existing);
    QVERIFY(!dialog.existingOutputBox()->isHidden());
    QVERIFY(dialog.okButton()->isEnabled());
    QVERIFY(dialog.resumeButton()->isChecked());  // the choice that loses nothing
    QVERIFY(dialog.config().resume && !dialog.config().overwrite);
    dialog.overwriteButton()->setChecked(true);
    QVERIFY(!dialog.config().resume && dialog.config().overwrite);
  }

  void dialogRemembersTheLastCorpusAndSettings() {
    QSettings settings(m_root.filePath("dialog.ini"), QSettings::IniFormat);
    {
      CaptureDialog dialog(m_model);
      dialog.setCorpus(m_corpus);
      dialog.tokensBox()->setValue(321);
      dialog.dtypeBox()->setCurrentText("float32");
      dialog.saveSettings(settings);
    }
    CaptureDialog again(m_model);
    again.restoreSettings(settings);
    QCOMPARE(again.corpusEdit()->text(), m_corpus);
    QCOMPARE(again.tokensBox()->value(), 321);
    QCOMPARE(again.dtypeBox()->currentText(), QStringLiteral("float32"));
    QVERIFY(again.okButton()->isEnabled());
  }

  void captureActionNeedsAnOpenModelAndOpensTheDialog() {
    MainWindow window(MainWindow::Options{.persistSettings = false});
    window.show();
    QVERIFY(!window.feature<CaptureFeature>()->captureAction()->isEnabled());
    QCOMPARE(window.feature<CaptureFeature>()->captureAction()->shortcut(),
             QKeySequence("Ctrl+Shift+C"));
    openModel(window);
    QVERIFY(window.feature<CaptureFeature>()->captureAction()->isEnabled());
    QCOMPARE(window.currentModel(), m_model);

    // Returns at once: the dialog has no event loop.
    window.feature<CaptureFeature>()->captureAction()->trigger();
    auto* dialog = window.findChild<CaptureDialog*>();
    QVERIFY(dialog);
    QTRY_VERIFY(dialog->isVisible());
    QVERIFY(dialog->findChild<QLabel*>("model")->text().contains("runnable-llama"));
    dialog->reject();
    QVERIFY(!window.busy());
  }

  void projectDockOffersCaptureForAModelEntry() {
    MainWindow window(MainWindow::Options{.persistSettings = false});
    window.show();
    openModel(window);
    QTreeWidget* tree = window.projectDock()->tree();
    tree->setCurrentItem(nullptr);
    QTreeWidgetItem* entry =
        tree->topLevelItem(static_cast<int>(ProjectCategory::Models))->child(0);
    QVERIFY(entry);
    emit tree->customContextMenuRequested(tree->visualItemRect(entry).center());
    QCOMPARE(window.projectDock()->selectedEntry(ProjectCategory::Models), m_model);
    QMenu* menu = window.projectDock()->findChild<QMenu*>();
    QVERIFY(menu);
    QVERIFY(menu->actions().contains(window.feature<CaptureFeature>()->captureAction()));
    menu->close();
  }

  void captureRunsInTheBackgroundAndOpensTheStore() {
    MainWindow window(MainWindow::Options{.persistSettings = false});
    window.show();
    openModel(window);
    const QString output = m_root.filePath("captured.h5");
    QSignalSpy captured(window.feature<CaptureFeature>(), &CaptureFeature::captureFinished);

    // The GUI thread must keep serving events while the job runs: measure the longest gap
    // between ticks of a 10 ms timer.
    QElapsedTimer clock;
    qint64 lastTick = 0;
    qint64 longestGap = 0;
    int ticks = 0;
    QTimer timer;
    timer.setInterval(10);
    connect(&timer, &QTimer::timeout, this, [&] {
      const qint64 now = clock.elapsed();
      longestGap = std::max(longestGap, now - lastTick);
      lastTick = now;
      ++ticks;
    });
    clock.start();
    timer.start();

    window.feature<CaptureFeature>()->startCapture(smallCapture(output));
    QVERIFY(window.busy());  // startCapture only started the job
    QVERIFY(window.jobProgress()->isVisible());
    QVERIFY(window.jobProgress()->cancelButton()->isEnabled());
    QTRY_VERIFY_WITH_TIMEOUT(
        window.projectDock()->entries(ProjectCategory::ActivationStores).contains(output),
        kTimeoutMs);
    timer.stop();

    QCOMPARE(captured.count(), 1);
    QCOMPARE(captured.first().at(0).toString(), output);
    QCOMPARE(captured.first().at(1).value<JobOutcome>(), JobOutcome::Succeeded);
    QVERIFY2(ticks > 0 && longestGap < 1000,
             qPrintable(QStringLiteral("%1 ticks, longest gap %2 ms").arg(ticks).arg(longestGap)));
    const QString log = window.logDock()->text();
    QVERIFY2(log.contains("Captured 100 tokens") && log.contains("3 layers written"),
             qPrintable(log));
    QVERIFY2(!log.contains("0 kept"), qPrintable(log));  // a fresh store keeps nothing
    QVERIFY(log.contains("3 of 3 layers complete"));     // the store opened with h_0..h_2
    QVERIFY(window.findChild<QMessageBox*>() == nullptr);
  }

  void resumingAStoreWritesOnlyTheMissingLayers() {
    MainWindow window(MainWindow::Options{.persistSettings = false});
    openModel(window);
    const QString output = m_root.filePath("resumed.h5");
    QSignalSpy captured(window.feature<CaptureFeature>(), &CaptureFeature::captureFinished);
    window.feature<CaptureFeature>()->startCapture(smallCapture(output));
    QTRY_COMPARE_WITH_TIMEOUT(captured.count(), 1, kTimeoutMs);
    engine::CaptureConfig again = smallCapture(output);
    again.resume = true;  // what the dialog's "Resume it" produces for an existing output
    window.feature<CaptureFeature>()->startCapture(again);
    QTRY_COMPARE_WITH_TIMEOUT(captured.count(), 2, kTimeoutMs);
    QCOMPARE(captured.last().at(1).value<JobOutcome>(), JobOutcome::Succeeded);
    const QString log = window.logDock()->text();
    QVERIFY2(log.contains("0 layers written, 3 already complete in the store and kept"),
             qPrintable(log));
  }

  void cancellingKeepsTheStoreResumable() {
    MainWindow window(MainWindow::Options{.persistSettings = false});
    openModel(window);
    const QString output = m_root.filePath("cancelled.h5");
    QSignalSpy captured(window.feature<CaptureFeature>(), &CaptureFeature::captureFinished);
    // A corpus that holds the whole budget: the job must be long and valid, so that whenever
    // Cancel lands (a loaded machine may run the job up to its sampling before the click), it
    // lands while the job runs. (The shared corpus could not give 20,000 tokens: a job that
    // reached its sampling first failed, and CI saw "Failed" instead of "Cancelled".)
    const QString corpus = m_root.filePath("many-words.txt");
    test::writeWordCorpus(corpus, 20000);
    engine::CaptureConfig config = test::smallCapture(m_model, corpus, output);
    config.sampling.tokenBudget = 200000;
    config.sampling.distinctPrefixes = false;  // the corpus repeats its paragraphs
    window.feature<CaptureFeature>()->startCapture(config);
    window.jobProgress()->cancelButton()->click();
    QTRY_COMPARE_WITH_TIMEOUT(captured.count(), 1, kTimeoutMs);
    const QString log = window.logDock()->text();
    QVERIFY2(captured.first().at(1).value<JobOutcome>() == JobOutcome::Cancelled, qPrintable(log));
    QVERIFY2(log.contains("cancelled") && log.contains("finished layers are kept") &&
                 log.contains("Resume"),
             qPrintable(log));
    QVERIFY(window.projectDock()->entries(ProjectCategory::ActivationStores).isEmpty());
    QVERIFY(window.findChild<QMessageBox*>() == nullptr);
  }

  void aFailedCaptureIsReported() {
    MainWindow window(MainWindow::Options{.persistSettings = false});
    QList<ErrorReport> reports;
    window.setErrorReporter([&reports](const ErrorReport& report) { reports << report; });
    openModel(window);
    QSignalSpy captured(window.feature<CaptureFeature>(), &CaptureFeature::captureFinished);
    engine::CaptureConfig config = smallCapture(m_root.filePath("never.h5"));
    config.corpus = toFsPath(m_root.filePath("no-such-corpus.txt"));
    window.feature<CaptureFeature>()->startCapture(config);
    QTRY_COMPARE_WITH_TIMEOUT(captured.count(), 1, kTimeoutMs);
    QCOMPARE(captured.first().at(1).value<JobOutcome>(), JobOutcome::Failed);
    QCOMPARE(reports.size(), 1);
    QVERIFY(reports.first().summary.contains("never.h5"));
    QVERIFY2(reports.first().error.contains("no-such-corpus"), qPrintable(reports.first().error));
    QVERIFY(reports.first().details.contains(m_model));
  }

 private:
  void openModel(MainWindow& window) {
    QSignalSpy opened(&window.events(), &WorkbenchEvents::pathOpened);
    window.feature<OpenFeature>()->openModelFolder(m_model);
    QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, kTimeoutMs);
  }

  engine::CaptureConfig smallCapture(const QString& output) const {
    return test::smallCapture(m_model, m_corpus, output);
  }

  QTemporaryDir m_root;
  QString m_model;
  QString m_corpus;
};

QTEST_MAIN(CaptureTest)
#include "capture_test.moc"
