// The Bridgeability tab from a hand-written sweep.json: one labelled point per layer at
// (S(l), best val loss), l* by score drawn again as a star, ρ and p in the caption, the table
// with the baseline greyed, the CSV export; and the window opening a sweep folder (or not).

#include "bridgeability_view.h"

#include <qcustomplot.h>

#include <QDir>
#include <QFile>
#include <QLabel>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include "features/bridge/bridge_feature.h"
#include "main_window.h"
#include "recipes/bridge/bridge_sweep.h"
#include "throw_away_settings.h"

using namespace strata;

namespace {

void writeText(const QString& file, const QByteArray& text) {
  QFile out(file);
  QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
  QCOMPARE(out.write(text), text.size());
}

/** Three layers (l* = 1 by score, lowest loss at layer 2) and the layer-0 baseline. */
void writeSweep(const QString& folder) {
  QVERIFY(QDir().mkpath(folder));
  writeText(folder + "/sweep.json", R"({
  "store": "/data/acts.h5", "rho": 0.5, "p_value": 0.4167,
  "best_by_score": 1, "best_by_loss": 2, "worst_by_score": 3,
  "layers": [
    {"layer": 1, "score": 1.25, "val_loss": 0.30, "val_cosine": 0.71, "val_ce_gap": 1.5, "run": "/s/layer-1"},
    {"layer": 2, "score": 0.25, "val_loss": 0.20, "val_cosine": 0.80, "val_ce_gap": 1.1, "run": "/s/layer-2"},
    {"layer": 3, "score": -1.5, "val_loss": 0.40, "val_cosine": 0.60, "val_ce_gap": 2.0, "run": "/s/layer-3"}
  ],
  "baselines": [
    {"layer": 0, "val_loss": 0.55, "val_cosine": 0.5, "val_ce_gap": 3.25, "run": "/s/layer-0"}
  ]
})");
}

std::shared_ptr<const recipes::BridgeSweepResult> readSweep(const QString& folder) {
  return std::make_shared<const recipes::BridgeSweepResult>(
      recipes::readBridgeSweep(std::filesystem::path(folder.toStdString())));
}

}  // namespace

class BridgeabilityViewTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(m_root.isValid());
    test::useThrowAwaySettings(m_root);
    m_folder = m_root.filePath("sweep");
    writeSweep(m_folder);
  }

  void plotsEveryLayerAtItsScoreAndLoss() {
    BridgeabilityView view(m_folder, readSweep(m_folder));
    QCPGraph* points = view.pointsGraph();
    QCOMPARE(points->dataCount(), 3);
    // Sorted by key (the score): layer 3, layer 2, layer 1.
    QCOMPARE(points->data()->at(0)->key, -1.5);
    QCOMPARE(points->data()->at(0)->value, 0.40);
    QCOMPARE(points->data()->at(2)->key, 1.25);
    QCOMPARE(points->data()->at(2)->value, 0.30);
    QCOMPARE(view.bestGraph()->dataCount(), 1);  // l* by score, highlighted
    QCOMPARE(view.bestGraph()->data()->at(0)->key, 1.25);
    QCOMPARE(view.pointLabels(), QStringList({"l* = 1", "layer 2", "layer 3"}));
    QCOMPARE(view.plot()->itemCount(), 3);
    const auto* label = qobject_cast<QCPItemText*>(view.plot()->item(1));
    QVERIFY(label);
    QCOMPARE(label->text(), QStringLiteral("layer 2"));
    QCOMPARE(label->position->coords(), QPointF(0.25, 0.20));
  }

  void theCaptionGivesRhoAndP() {
    BridgeabilityView view(m_folder, readSweep(m_folder));
    const QString caption = view.caption()->text();
    QVERIFY2(caption.contains(QStringLiteral("ρ(S, −val loss) = 0.50")), qPrintable(caption));
    QVERIFY2(caption.contains(QStringLiteral("p = 0.417")), qPrintable(caption));
    QVERIFY2(caption.contains(QStringLiteral("n = 3 layers")), qPrintable(caption));
    QVERIFY2(caption.contains(QStringLiteral("l* by score: layer 1")), qPrintable(caption));
    QVERIFY2(caption.contains(QStringLiteral("lowest val loss: layer 2")), qPrintable(caption));
  }

  void theTableMarksLStarAndTheBaseline() {
    BridgeabilityView view(m_folder, readSweep(m_folder));
    QTableWidget* table = view.table();
    QCOMPARE(table->rowCount(), 4);
    QCOMPARE(table->item(0, 0)->text(), QStringLiteral("1 (l*)"));
    QVERIFY(table->item(0, 2)->font().bold());
    QCOMPARE(table->item(1, 0)->text(), QStringLiteral("2"));
    QVERIFY(!table->item(1, 0)->font().bold());
    QCOMPARE(table->item(1, 2)->text(), QStringLiteral("0.2"));
    QCOMPARE(table->item(3, 0)->text(), QStringLiteral("0 (baseline)"));
    QCOMPARE(table->item(3, 1)->text(), QStringLiteral("—"));  // no score: outside ρ
    QCOMPARE(table->item(3, 5)->text(), QStringLiteral("/s/layer-0"));
  }

  void exportsTheTableAsCsvAndThePlot() {
    BridgeabilityView view(m_folder, readSweep(m_folder));
    const QString expected = QStringLiteral(
        "layer,score,val_loss,val_cosine,val_ce_gap,run\n"
        "1,1.25,0.3,0.71,1.5,/s/layer-1\n"
        "2,0.25,0.2,0.8,1.1,/s/layer-2\n"
        "3,-1.5,0.4,0.6,2,/s/layer-3\n"
        "0,,0.55,0.5,3.25,/s/layer-0\n");
    QCOMPARE(view.csv(), expected);
    const QString csv = m_root.filePath("table.csv");
    view.saveCsv(csv);
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(file.readAll()), expected);
    const QString png = m_root.filePath("scatter.png");
    view.savePlot(png);
    QVERIFY(QFileInfo(png).size() > 1000);
  }

  void theWindowOpensASweepFolderOrReportsWhyNot() {
    MainWindow window(MainWindow::Options{false});
    QStringList errors;
    window.setErrorReporter([&](const ErrorReport& report) { errors << report.error; });
    window.feature<BridgeFeature>()->openSweepFolder(m_folder);
    QVERIFY(errors.isEmpty());
    BridgeabilityView* view = window.feature<BridgeFeature>()->bridgeabilityView(m_folder);
    QVERIFY(view);
    QCOMPARE(window.tabs()->currentWidget(), view);
    window.feature<BridgeFeature>()->openSweepFolder(m_folder);  // again: the same tab, refreshed
    QCOMPARE(window.tabs()->count(), 1);

    window.feature<BridgeFeature>()->openSweepFolder(m_root.filePath("nowhere"));
    QCOMPARE(errors.size(), 1);
    QVERIFY2(errors.first().contains(QStringLiteral("sweep.json")), qPrintable(errors.first()));
  }

 private:
  QTemporaryDir m_root;
  QString m_folder;
};

QTEST_MAIN(BridgeabilityViewTest)
#include "bridgeability_view_test.moc"
