// Verify against Transformers in the workbench: the result table (a display of core's struct),
// the model tab that embeds it, the project dock's badge, and the menu action's job end to end —
// without transformers (an error dialog, "not verified") and with it (table and "✓" badge).

#include "transformers_verification_view.h"

#include <QAction>
#include <QDir>
#include <QFile>
#include <QHeaderView>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "features/open/open_feature.h"
#include "features/verify/verify_feature.h"
#include "log_dock.h"
#include "main_window.h"
#include "model_summary_view.h"
#include "project_dock.h"
#include "throw_away_settings.h"

using namespace strata;

namespace {

constexpr int kJobTimeoutMs = 180000;

/** A made-up result: three blocks, h_2 clearly off. */
std::shared_ptr<verify::TransformersVerification> differingResult() {
  auto result = std::make_shared<verify::TransformersVerification>();
  result->model = "/models/tiny";
  result->transformersVersion = "5.25.0";
  result->torchVersion = "2.11.0";
  result->python = "/venv/bin/python";
  result->architecture = "LlamaForCausalLM";
  const double maxAbs[] = {0.0, 1.5e-7, 0.25, 0.5};
  for (int64_t l = 0; l < 4; ++l) result->layers.push_back({l, {maxAbs[l], 2.0, maxAbs[l] / 2.0}});
  result->finalNorm = {0.125, 4.0, 0.03125};
  result->logits = {1.0, 8.0, 0.125};
  result->top1Agreement = 0.75;
  result->positions = 40;
  result->tokensEqual = true;
  result->prompts = {{"hello", {1, 2}, {1, 2}}};
  return result;
}

std::shared_ptr<verify::TransformersVerification> agreeingResult() {
  auto result = differingResult();
  for (verify::LayerDifference& layer : result->layers) layer.difference = {1e-7, 2.0, 5e-8};
  result->finalNorm = {1e-7, 4.0, 2.5e-8};
  result->logits = {1e-6, 8.0, 1.25e-7};
  result->top1Agreement = 1.0;
  return result;
}

}  // namespace

class TransformersVerificationViewTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(m_root.isValid());
    test::useThrowAwaySettings(m_root);
  }

  void tableShowsEveryHiddenStateThenFinalNormAndLogits() {
    TransformersVerificationView view(differingResult());
    QTableWidget* table = view.table();
    QCOMPARE(table->columnCount(), 4);
    QCOMPARE(table->rowCount(), 6);  // h_0 … h_3, final norm, logits
    QCOMPARE(table->item(0, 0)->text(), QStringLiteral("h_0"));
    QCOMPARE(table->item(3, 0)->text(), QStringLiteral("h_3"));
    QCOMPARE(table->item(4, 0)->text(), QStringLiteral("final norm"));
    QCOMPARE(table->item(5, 0)->text(), QStringLiteral("logits"));
    QCOMPARE(table->item(2, 1)->text(), QStringLiteral("2.50e-01"));  // max |Δ| of h_2
    QCOMPARE(table->item(2, 2)->text(), QStringLiteral("2.00e+00"));  // max |h|
    QCOMPARE(table->item(2, 3)->text(), QStringLiteral("1.25e-01"));  // relative
    QVERIFY(table->item(3, 0)->font().bold());  // the worst row (h_3, relative 0.25)
    QVERIFY(!table->item(2, 0)->font().bold());
    QVERIFY(view.verdictText().startsWith("DIFFERS from transformers 5.25.0"));
    QVERIFY(view.verdictText().contains("h_3"));
    QVERIFY(view.summaryText().contains("75.0% of 40 positions"));
    QVERIFY(view.summaryText().contains("identical ids on all 1 prompts"));
  }

  void relativeColumnIsNoWiderThanItsNumbers() {
    // In a wide tab the table keeps its columns' widths: "Relative" once stretched to the
    // window's edge, far from the row it belongs to.
    QWidget tab;
    auto* layout = new QVBoxLayout(&tab);
    auto* view = new TransformersVerificationView(differingResult(), &tab);
    layout->addWidget(view);
    tab.resize(1400, 600);
    tab.show();
    QVERIFY(QTest::qWaitForWindowExposed(&tab));
    QTableWidget* table = view->table();
    const int relative = table->columnWidth(3);
    const QAbstractItemView* items = table;  // QTableView hides sizeHintForColumn
    const int needed =
        std::max(items->sizeHintForColumn(3), table->horizontalHeader()->sectionSizeHint(3));
    QVERIFY2(relative <= needed + 8,
             qPrintable(QStringLiteral("Relative is %1 px, needs %2").arg(relative).arg(needed)));
    QVERIFY2(table->width() < 700, qPrintable(QString::number(table->width())));
  }

  void badgeSaysWhetherItMatches() {
    QCOMPARE(verificationBadge(nullptr), QStringLiteral("not verified"));
    const auto agreeing = agreeingResult();
    QCOMPARE(verificationBadge(agreeing.get()), QStringLiteral("✓ matches transformers 5.25.0"));
    const auto differing = differingResult();
    QCOMPARE(verificationBadge(differing.get()),
             QStringLiteral("✗ differs from transformers 5.25.0"));
  }

  void modelTabEmbedsTheTableAndReplacesIt() {
    auto summary = std::make_shared<io::ModelSummary>();
    summary->folder = "/models/tiny";
    summary->config.architectureName = "LlamaForCausalLM";
    ModelSummaryView view(summary);
    QVERIFY(view.verificationView() == nullptr);
    view.showVerification(differingResult());
    QVERIFY(view.verificationView() != nullptr);
    QVERIFY(view.verificationView()->verdictText().startsWith("DIFFERS"));
    view.showVerification(agreeingResult());
    QVERIFY(view.verificationView()->verdictText().startsWith("agrees"));
    QCOMPARE(view.findChildren<TransformersVerificationView*>().size(), 1);
  }

  void projectDockShowsABadgeBesideTheEntry() {
    ProjectDock dock;
    dock.addEntry(ProjectCategory::Models, "/models/tiny");
    QCOMPARE(dock.entryBadge(ProjectCategory::Models, "/models/tiny"), QString());
    dock.setEntryBadge(ProjectCategory::Models, "/models/tiny", "✓ matches transformers 5.25.0");
    QCOMPARE(dock.entryBadge(ProjectCategory::Models, "/models/tiny"),
             QStringLiteral("✓ matches transformers 5.25.0"));
    QCOMPARE(dock.tree()->topLevelItem(0)->child(0)->text(0), QStringLiteral("tiny"));
    dock.setEntryBadge(ProjectCategory::Models, "/elsewhere", "ignored");  // not listed: no-op
    QCOMPARE(dock.entryBadge(ProjectCategory::Models, "/elsewhere"), QString());
  }

  void withoutTransformersTheWindowReportsItAndStaysUnverified() {
    const QString fake = m_root.filePath("python-without-transformers");
    std::ofstream(fake.toStdString()) << "#!/bin/sh\nexit 1\n";
    QFile::setPermissions(fake, QFile::permissions(fake) | QFileDevice::ExeOwner);
    qputenv("STRATA_PYTHON", fake.toLocal8Bit());
    MainWindow window(MainWindow::Options{.persistSettings = false});
    QStringList errors;
    window.setErrorReporter([&](const ErrorReport& report) { errors << report.error; });
    const QString model = openDefaultModel(window);
    QCOMPARE(window.projectDock()->entryBadge(ProjectCategory::Models, model),
             QStringLiteral("not verified"));
    QVERIFY(window.feature<VerifyFeature>()->verifyAction()->isEnabled());
    QSignalSpy finished(window.feature<VerifyFeature>(), &VerifyFeature::verificationFinished);
    window.feature<VerifyFeature>()->verifyAction()->trigger();
    QVERIFY(finished.wait(kJobTimeoutMs));
    QCOMPARE(finished.first().at(1).value<JobOutcome>(), JobOutcome::Failed);
    QCOMPARE(errors.size(), 1);
    QVERIFY2(errors.first().startsWith("transformers is not installed for " + fake),
             qPrintable(errors.first()));
    QCOMPARE(window.projectDock()->entryBadge(ProjectCategory::Models, model),
             QStringLiteral("not verified"));
    qunsetenv("STRATA_PYTHON");
  }

  void verifyingTheDefaultModelShowsTheTableAndAMatchBadge() {
#ifdef STRATA_REFERENCE_PYTHON
    qputenv("STRATA_PYTHON", STRATA_REFERENCE_PYTHON);
#endif
    MainWindow window(MainWindow::Options{.persistSettings = false});
    QStringList errors;
    window.setErrorReporter([&](const ErrorReport& report) { errors << report.error; });
    const QString model = openDefaultModel(window);
    QSignalSpy finished(window.feature<VerifyFeature>(), &VerifyFeature::verificationFinished);
    window.feature<VerifyFeature>()->verifyModel(model);
    QVERIFY(finished.wait(kJobTimeoutMs));
    QVERIFY2(errors.isEmpty(), qPrintable(errors.join('\n')));
    QCOMPARE(finished.first().at(1).value<JobOutcome>(), JobOutcome::Succeeded);
    QVERIFY(window.projectDock()
                ->entryBadge(ProjectCategory::Models, model)
                .startsWith("✓ matches transformers "));
    auto* tab = qobject_cast<ModelSummaryView*>(window.tabs()->currentWidget());
    QVERIFY(tab);
    QVERIFY(tab->verificationView());
    QCOMPARE(tab->verificationView()->table()->rowCount(), 4 + 1 + 2);  // 4 layers of the default
    QVERIFY(window.feature<VerifyFeature>()->verification(model)->agrees());
    qunsetenv("STRATA_PYTHON");
  }

 private:
  /** Opens the built-in default model (resources/models/default) and returns its path. */
  QString openDefaultModel(MainWindow& window) {
    const QString model =
        QDir::cleanPath(QStringLiteral(STRATA_SOURCE_DIR "/resources/models/default"));
    QSignalSpy opened(&window.events(), &WorkbenchEvents::pathOpened);
    window.feature<OpenFeature>()->openModelFolder(model);
    if (!opened.wait(20000)) qFatal("the default model did not open");
    return model;
  }

  QTemporaryDir m_root;
};

QTEST_MAIN(TransformersVerificationViewTest)
#include "transformers_verification_view_test.moc"
