// Training ▸ Run Study…: the dialog's defaults and checks, the Study tab's page (study.md, then
// the plots), and a smoke study run from the window — in the training slot, as one job, its
// plots drawn and its results shown in a Study tab when it finishes.

#include "study_view.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>

#include "features/studies/studies_feature.h"
#include "main_window.h"
#include "study_dialog.h"
#include "throw_away_settings.h"

using namespace strata;

namespace {

constexpr int kTimeoutMs = 600000;

void writeText(const QString& file, const QByteArray& text) {
  QFile out(file);
  QVERIFY(out.open(QIODevice::WriteOnly));
  out.write(text);
}

}  // namespace

class StudyViewTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(m_root.isValid());
    test::useThrowAwaySettings(m_root);
    m_corpus = m_root.filePath("corpus.txt");
    QByteArray text;
    const char* lines[] = {"the cat sat on the mat and looked at the dog.\n",
                           "a dog ran to the park where the birds sang all day.\n",
                           "we walked home in the rain, talking about the sea.\n\n"};
    for (int i = 0; i < 120; ++i) text += lines[i % 3];
    writeText(m_corpus, text);
  }

  void theDialogFollowsTheStudyAndChecksTheForm() {
    StudyDialog dialog({"dihal", "dcdm", "repr-align"}, m_root.path());
    QPushButton* ok = dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
    QCOMPARE(QDir::fromNativeSeparators(dialog.folderEdit()->text()),
             m_root.filePath("study-dihal"));
    dialog.studyBox()->setCurrentText("dcdm");
    QCOMPARE(QDir::fromNativeSeparators(dialog.folderEdit()->text()),
             m_root.filePath("study-dcdm"));
    QVERIFY(ok->isEnabled());
    QCOMPARE(dialog.seedsBox()->value(), 3);

    dialog.corpusEdit()->setText(m_root.filePath("missing.txt"));
    QVERIFY(!ok->isEnabled());
    dialog.corpusEdit()->setText(m_corpus);
    dialog.settingsEdit()->setText("threads");
    QVERIFY(!ok->isEnabled());
    dialog.settingsEdit()->setText("threads=1  eval_every=2");
    QVERIFY(ok->isEnabled());
    QTest::keyClicks(dialog.folderEdit(), "-mine");  // a folder the user typed stays
    dialog.studyBox()->setCurrentText("repr-align");
    QCOMPARE(QDir::fromNativeSeparators(dialog.folderEdit()->text()),
             m_root.filePath("study-dcdm-mine"));

    const StudyChoice choice = dialog.choice();
    QCOMPARE(choice.study, QString("repr-align"));
    QCOMPARE(choice.budget, QString("full"));
    QCOMPARE(choice.overrides(), QStringList({"corpus=" + m_corpus, "threads=1", "eval_every=2"}));
  }

  void theStudyPageIsTheReportThenThePlots() {
    const QString folder = m_root.filePath("page");
    QVERIFY(QDir().mkpath(folder + "/plots"));
    QVERIFY(studyMarkdown(folder).contains("No analysis yet"));
    writeText(folder + "/study.md", "# DCDM\n\n**Verdict (x): supported** — because\n");
    QImage image(4, 4, QImage::Format_RGB32);
    image.fill(Qt::red);
    QVERIFY(image.save(folder + "/plots/b-curve.png"));
    QVERIFY(image.save(folder + "/plots/a-bars.png"));
    const QString page = studyMarkdown(folder);
    QVERIFY(page.startsWith("# DCDM"));
    const qsizetype a = page.indexOf("![a-bars.png](plots/a-bars.png)");
    const qsizetype b = page.indexOf("![b-curve.png](plots/b-curve.png)");
    QVERIFY2(a > 0 && b > a, qPrintable(page));
    StudyView view(folder);
    QVERIFY(view.browser()->toPlainText().contains("Verdict (x): supported"));
  }

  void aSmokeStudyRunsInTheSlotAndOpensItsResults() {
    MainWindow window(MainWindow::Options{.persistSettings = false});
    QList<ErrorReport> errors;
    window.setErrorReporter([&errors](const ErrorReport& report) { errors << report; });
    StudiesFeature* studies = window.feature<StudiesFeature>();
    QVERIFY(studies);
    QSignalSpy finished(studies, &StudiesFeature::studyFinished);
    StudyChoice choice;
    choice.study = "repr-align";
    choice.folder = m_root.filePath("smoke");
    choice.corpus = m_corpus;
    choice.seeds = 2;
    choice.budget = "smoke";
    QVERIFY(studies->startStudy(choice));
    QVERIFY(window.busy());
    QCOMPARE(window.trainingSlot().holder, QString("study"));
    QVERIFY(!studies->startStudy(choice));  // one training at a time
    QVERIFY(finished.wait(kTimeoutMs));
    QVERIFY2(errors.isEmpty(), qPrintable(errors.value(0).error + "\n" + errors.value(0).details));
    QCOMPARE(finished.first().at(1).value<JobOutcome>(), JobOutcome::Succeeded);
    QVERIFY(window.trainingSlot().isFree());

    auto* view = qobject_cast<StudyView*>(window.tabs()->currentWidget());
    QVERIFY2(view, "the Study tab is not the current tab");
    QCOMPARE(view->folder(), QDir(m_root.filePath("smoke")).absolutePath());
    QVERIFY2(view->markdown().contains("**Verdict"), qPrintable(view->markdown()));
    const QStringList plots =
        QDir(m_root.filePath("smoke/plots")).entryList({"*.png"}, QDir::Files);
    QVERIFY2(!plots.isEmpty(), "no plots were drawn");
    for (const QString& plot : plots) QVERIFY(view->markdown().contains("plots/" + plot));
  }

 private:
  QTemporaryDir m_root;
  QString m_corpus;
};

QTEST_MAIN(StudyViewTest)
#include "study_view_test.moc"
