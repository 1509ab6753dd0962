// strata-study-plots on a study.json written here (the shape of core/studies/study_report.h):
// every expected PNG exists, has the size asked for, and is not trivial (many distinct colours,
// as tests/views/screenshot_test.cpp checks its pictures).

#include <QDir>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>

namespace {

/** Distinct colours on a 64×64 grid of sample points: a blank or single-colour image has 1–2. */
int distinctColours(const QImage& image) {
  QSet<QRgb> colours;
  for (int y = 0; y < 64; ++y)
    for (int x = 0; x < 64; ++x)
      colours.insert(image.pixel(x * image.width() / 64, y * image.height() / 64));
  return static_cast<int>(colours.size());
}

/** Distinct colours with a hue (HSV saturation above 80) over every pixel: the data's marks,
 *  bars, lines and bands. A chart with only its title, axes and grid (black and greys) has 0. */
int hueColours(const QImage& image) {
  QSet<QRgb> colours;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) {
      const QColor c = image.pixelColor(x, y);
      if (c.hsvSaturation() > 80) colours.insert(c.rgb());
    }
  return static_cast<int>(colours.size());
}

const char* kStudyJson = R"({
 "study": "toy", "title": "a toy study", "question": "is a lower than b?",
 "protocol": {"budget": "smoke", "seeds": [0, 1, 2],
   "arms": [{"name": "a", "recipe": "dcdm", "settings": [], "description": ""},
            {"name": "b", "recipe": "dcdm", "settings": [], "description": ""}],
   "auxiliary": [], "shared_settings": [], "overrides": [],
   "metrics": [{"key": "loss", "label": "best val loss", "lower_is_better": true}],
   "curves": ["val_loss"],
   "claims": [{"id": "a_lower", "statement": "a is lower", "metric": "loss", "arm": "a", "baseline": "b",
               "direction": "lower", "margin": 0}],
   "headline": "a_lower", "decision_rule": "...", "statistics": {}},
 "code_version": "0", "build": "test", "machine": {}, "date": "2026-12-04T00:00:00Z",
 "facts": {"unigram_entropy": 3.2},
 "runs": [],
 "aggregates": {"a": {"loss": {"n": 3, "mean": 2.0, "sd": 0.1, "low": 1.9, "high": 2.1, "values": [1.9, 2.0, 2.1]}},
                "b": {"loss": {"n": 3, "mean": 2.5, "sd": 0.2, "low": 2.3, "high": 2.7, "values": [2.3, 2.5, 2.7]}}},
 "curves": {"val_loss": {"a": {"step": [10, 20, 30], "mean": [3.0, 2.5, 2.0], "low": [2.9, 2.4, 1.9], "high": [3.1, 2.6, 2.1]},
                         "b": {"step": [10, 20, 30], "mean": [3.1, 2.8, 2.5], "low": [3.0, 2.7, 2.3], "high": [3.2, 2.9, 2.7]}}},
 "tables": {"layers": {"description": "per layer", "columns": ["layer", "S", "S_low", "S_high"],
                       "rows": [[1, 0.5, 0.2, 0.8], [2, -0.3, -0.6, 0.1], [3, 1.2, 0.9, 1.6], [4, null, null, null]]}},
 "claims": [{"id": "a_lower", "statement": "a is lower", "metric": "loss", "arm": "a", "baseline": "b",
             "direction": "lower", "margin": 0,
             "difference": {"n": 3, "mean": -0.5, "sd": 0.1, "low": -0.6, "high": -0.4, "values": [-0.4, -0.5, -0.6]},
             "verdict": {"result": "supported", "reason": "..."}}],
 "verdict": {"result": "supported", "reason": "..."}
})";

}  // namespace

class StudyPlotsTest : public QObject {
  Q_OBJECT
 private slots:
  void writesEveryPlotAsANonTrivialPng() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QFile json(dir.filePath("study.json"));
    QVERIFY(json.open(QIODevice::WriteOnly));
    json.write(kStudyJson);
    json.close();
    QProcess plots;
    plots.start(STRATA_STUDY_PLOTS_PATH, {dir.path()});
    QVERIFY(plots.waitForFinished(60000));
    QVERIFY2(plots.exitCode() == 0, plots.readAllStandardError().constData());
    for (const char* name :
         {"loss.png", "curve_val_loss.png", "claims_loss.png", "table_layers_S.png"}) {
      const QString file = QDir(dir.filePath("plots")).filePath(name);
      QVERIFY2(QFile::exists(file), qPrintable(file));
      const QImage image(file);
      QCOMPARE(image.size(), QSize(900, 600));
      const int colours = distinctColours(image);
      QVERIFY2(colours >= 12,
               qPrintable(QStringLiteral("%1: only %2 colours").arg(name).arg(colours)));
      const int data = hueColours(image);
      QVERIFY2(data >= 6,
               qPrintable(QStringLiteral("%1: only %2 coloured data colours").arg(name).arg(data)));
    }
    // A table's interval columns are the band of their column, not charts of their own.
    const QStringList tableCharts =
        QDir(dir.filePath("plots")).entryList({QStringLiteral("table_*.png")});
    QCOMPARE(tableCharts, QStringList{QStringLiteral("table_layers_S.png")});
  }

  void malformedStudyJsonFailsNamingTheFile() {
    QTemporaryDir dir;
    QFile json(dir.filePath("study.json"));
    QVERIFY(json.open(QIODevice::WriteOnly));
    json.write("{\"study\": \"toy\"}");
    json.close();
    QProcess plots;
    plots.start(STRATA_STUDY_PLOTS_PATH, {dir.path()});
    QVERIFY(plots.waitForFinished(60000));
    QCOMPARE(plots.exitCode(), 1);
    QVERIFY(QString(plots.readAllStandardError()).contains("study.json"));
  }
};

QTEST_GUILESS_MAIN(StudyPlotsTest)
#include "study_plots_test.moc"
