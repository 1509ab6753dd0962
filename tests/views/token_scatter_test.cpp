// Issue 22: the layer detail's principal-plane scatter reads like LIT. Hovering a point shows
// its token's text, document and position; a click selects the token and the context strip
// shows the text around it (same document, ~10 tokens either side) with the token highlighted;
// a click on empty space clears both. The texts come from the store's model tokenizer
// (readLayerDetail), checked on a store captured from the built-in default model.

#include <qcustomplot.h>

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QTextCursor>
#include <QToolTip>

#include "bridge_fixture.h"
#include "display_text.h"
#include "engine/layer_detail.h"
#include "engine/token_context.h"
#include "geometry/geometry_report.h"
#include "io/activation_store.h"
#include "layer_detail_view.h"
#include "throw_away_settings.h"
#include "token_context_strip.h"
#include "token_strip.h"

using namespace strata;

namespace {

/**
 * Two documents on a spiral (every point far from the others), 40 rows:
 *   rows  0..24: document 0, positions 1..25, token i is "w<i>" (a space before odd ones)
 *   rows 25..39: document 1, positions 1..15
 * Row 12 (document 0, position 13) has the neighbours rows 2..22 (positions 3..23).
 */
std::shared_ptr<engine::LayerDetail> spiralDetail() {
  auto detail = std::make_shared<engine::LayerDetail>();
  detail->storeFile = "/data/acts.h5";
  detail->hiddenSize = 8;
  detail->geometry.layer = 2;
  for (int t = 0; t < 40; ++t) {
    const double angle = t * 0.5, radius = 1.0 + t;
    detail->plane.coordinates.push_back(static_cast<float>(radius * std::cos(angle)));
    detail->plane.coordinates.push_back(static_cast<float>(radius * std::sin(angle)));
    detail->tokenIds.push_back(100 + t);
    detail->documents.push_back(t < 25 ? 0 : 1);
    detail->positions.push_back(t < 25 ? t + 1 : t - 24);
    detail->tokenTexts.push_back((t % 2 ? " w" : "w") + std::to_string(t));
  }
  detail->plane.explained[0] = 0.5;
  detail->plane.explained[1] = 0.2;
  return detail;
}

/** A shown detail view, laid out and drawn, so pixel positions are final. */
void show(LayerDetailView& view) {
  view.resize(1200, 700);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  view.scatterPlot()->replot();
}

QString readText(const QString& file) {
  QFile in(file);
  return in.open(QIODevice::ReadOnly) ? QString::fromUtf8(in.readAll()) : QString();
}

}  // namespace

class TokenScatterTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    test::useThrowAwaySettings(m_dir);
  }

  void contextIsTheSameDocumentAroundTheToken() {
    // Document 0 has positions 1..25 except 10; document 1 interleaves with it.
    std::vector<int32_t> documents, positions;
    for (int p = 1; p <= 25; ++p) {
      if (p == 10) continue;
      documents.push_back(0), positions.push_back(p);
      documents.push_back(1), positions.push_back(p);
    }
    const int64_t row = 2 * 11;  // document 0, position 13 (p = 10 is missing before it)
    QCOMPARE(positions[std::size_t(row)], 13);
    const engine::TokenContext context = engine::tokenContext(documents, positions, row, 5);
    // Positions 8..18 of document 0, a gap where position 10 is missing.
    std::vector<int32_t> shown;
    for (const int64_t r : context.rows) {
      if (r == engine::TokenContext::kGap) {
        shown.push_back(-1);
        continue;
      }
      QCOMPARE(documents[std::size_t(r)], 0);
      shown.push_back(positions[std::size_t(r)]);
    }
    QCOMPARE(shown, (std::vector<int32_t>{8, 9, -1, 11, 12, 13, 14, 15, 16, 17, 18}));
    QCOMPARE(context.rows[context.selected], row);
    // The window of position 1 starts at 0, which the store lacks (a sequence's first
    // position is not stored by default): a gap first.
    const engine::TokenContext start = engine::tokenContext(documents, positions, 0, 5);
    QCOMPARE(start.rows.front(), engine::TokenContext::kGap);
    QCOMPARE(start.rows[start.selected], 0);
    QVERIFY(engine::tokenContext(documents, positions, 999, 5).rows.empty());
  }

  void hoverOverAPointShowsItsTokenDocumentAndPosition() {
    LayerDetailView view(spiralDetail());
    show(view);
    QCustomPlot* scatter = view.scatterPlot();
    const QPoint at = view.pixelOf(13).toPoint();
    QCOMPARE(view.rowAt(at), 13);
    const QString expected = QStringLiteral("“ w13” (id 113)\ndocument 0, position 14");
    QCOMPARE(view.tokenToolTip(13), expected);
    QTest::mouseMove(scatter, at);
    QTRY_COMPARE(QToolTip::text(), expected);
    // Off every point: no tooltip.
    const QPoint away = scatter->axisRect()->rect().topLeft() + QPoint(3, 3);
    QCOMPARE(view.rowAt(away), -1);
    QTest::mouseMove(scatter, away);
    QTRY_VERIFY(!QToolTip::isVisible());
  }

  void clickSelectsTheTokenAndTheStripShowsItsContext() {
    LayerDetailView view(spiralDetail());
    show(view);
    QSignalSpy selected(&view, &LayerDetailView::tokenSelected);
    QTest::mouseClick(view.scatterPlot(), Qt::LeftButton, {}, view.pixelOf(12).toPoint());
    QCOMPARE(view.selectedRow(), 12);
    QCOMPARE(selected.count(), 1);
    // A ring on the selected point.
    QCPGraph* mark = view.scatterPlot()->graph(view.scatterPlot()->graphCount() - 1);
    QCOMPARE(mark->dataCount(), 1);
    QCOMPARE(mark->data()->at(0)->key, double(spiralDetail()->plane.coordinates[24]));

    // The strip: document 0 positions 3..23 (rows 2..22) in order, w12 highlighted, nothing
    // of document 1.
    TokenContextStrip* strip = view.contextStrip();
    QCOMPARE(strip->highlightedText(), QStringLiteral("w12"));
    QCOMPARE(strip->highlightedRow(), 12);
    QString context = QStringLiteral("document 0, position 13:  ");
    for (int t = 2; t <= 22; ++t) context += (t % 2 ? " w" : "w") + QString::number(t);
    QCOMPARE(strip->toPlainText().remove(QChar(0x200A)), context);
  }

  void clickInTheStripSelectsThatToken() {
    LayerDetailView view(spiralDetail());
    show(view);
    view.selectToken(12);
    TokenContextStrip* strip = view.contextStrip();
    // The first character of row 15's token (" w15") in the strip's text.
    int start = -1;
    for (QTextBlock block = strip->document()->begin(); block.isValid(); block = block.next())
      for (auto it = block.begin(); !it.atEnd(); ++it)
        if (it.fragment().charFormat().property(TokenContextStrip::kRowProperty).toLongLong() ==
                15 &&
            start < 0)
          start = it.fragment().position() + 1;  // the "w", not the space before it
    QVERIFY(start > 0);
    QTextCursor before(strip->document()), after(strip->document());
    before.setPosition(start);
    after.setPosition(start + 1);
    const QPoint at((strip->cursorRect(before).left() + strip->cursorRect(after).left()) / 2,
                    strip->cursorRect(before).center().y());
    QCOMPARE(strip->rowAt(at), 15);
    QTest::mouseClick(strip->viewport(), Qt::LeftButton, {}, at);
    QCOMPARE(view.selectedRow(), 15);
    QCOMPARE(strip->highlightedText(), QStringLiteral(" w15"));
    QCPGraph* mark = view.scatterPlot()->graph(view.scatterPlot()->graphCount() - 1);
    QCOMPARE(mark->data()->at(0)->key, double(spiralDetail()->plane.coordinates[30]));
  }

  void clickOnEmptySpaceClearsTheSelection() {
    LayerDetailView view(spiralDetail());
    show(view);
    view.selectToken(30);
    QCOMPARE(view.contextStrip()->highlightedRow(), 30);
    QSignalSpy selected(&view, &LayerDetailView::tokenSelected);
    const QPoint away = view.scatterPlot()->axisRect()->rect().topLeft() + QPoint(3, 3);
    QTest::mouseClick(view.scatterPlot(), Qt::LeftButton, {}, away);
    QCOMPARE(view.selectedRow(), -1);
    QCOMPARE(selected.count(), 1);
    QCOMPARE(selected.first().first().toLongLong(), -1);
    QVERIFY(view.contextStrip()->toPlainText().isEmpty());
    QCOMPARE(view.contextStrip()->highlightedRow(), -1);
    QCPGraph* mark = view.scatterPlot()->graph(view.scatterPlot()->graphCount() - 1);
    QCOMPARE(mark->dataCount(), 0);
  }

  // Real data: the default model's store; each row's text decoded by the model's tokenizer, so
  // a document's consecutive rows spell a piece of the corpus.
  void storeTokensAreDecodedWithTheModelsTokenizer() {
    const QString corpus = m_dir.filePath("code.txt");
    const QString store = m_dir.filePath("default.h5");
    test::writeCodeCorpus(corpus);
    test::writeScoredStore(store, corpus, 512);
    const auto report = geometry::readGeometry(toFsPath(store));
    QVERIFY(report);
    const auto detail = std::make_shared<engine::LayerDetail>(
        engine::readLayerDetail(toFsPath(store), report->layers[2]));
    QVERIFY2(detail->tokenTextNote.empty(), detail->tokenTextNote.c_str());
    QCOMPARE(detail->tokenTexts.size(), detail->tokenIds.size());
    QCOMPARE(detail->documents.size(), detail->tokenIds.size());

    // Rows 0..25 hold consecutive positions of one document (sequences of 64 are stored whole
    // but for position 0): their texts joined are a piece of the corpus.
    std::string joined;
    for (std::size_t r = 0; r <= 25; ++r) {
      QCOMPARE(detail->documents[r], detail->documents[0]);
      QCOMPARE(detail->positions[r], detail->positions[0] + int(r));
      joined += detail->tokenTexts[r];
    }
    const QString corpusText = readText(corpus);
    QVERIFY2(corpusText.contains(QString::fromStdString(joined)), joined.c_str());

    LayerDetailView view(detail);
    show(view);
    QVERIFY(view.tokenToolTip(5).startsWith(
        QStringLiteral("“%1”").arg(visibleTokenText(detail->tokenTexts[5]))));
    view.selectToken(15);
    QCOMPARE(view.contextStrip()->highlightedText(), visibleTokenText(detail->tokenTexts[15]));
    QString around;  // rows 5..25: positions 10 either side of row 15's
    for (std::size_t r = 5; r <= 25; ++r) around += visibleTokenText(detail->tokenTexts[r]);
    QVERIFY2(view.contextStrip()->toPlainText().remove(QChar(0x200A)).contains(around),
             qPrintable(view.contextStrip()->toPlainText() + " | " + around));
  }

  void aStoreWhoseModelIsGoneShowsIdsAndSaysWhy() {
    const QString file = m_dir.filePath("orphan.h5");
    io::StoreMeta meta;
    meta.modelId = m_dir.filePath("no-such-model").toStdString();
    meta.architecture = "LlamaForCausalLM";
    meta.hiddenSize = 4;
    meta.numLayers = 1;
    meta.dtype = io::StoreDType::Float32;
    io::TokenTable tokens;
    for (int i = 0; i < 12; ++i) {
      tokens.ids.push_back(40 + i);
      tokens.doc.push_back(0);
      tokens.position.push_back(1 + i);
    }
    auto writer = io::ActivationStoreWriter::create(toFsPath(file), meta, tokens);
    std::vector<float> rows(12 * 4);
    for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = float((i * 7) % 11) - 5.0f;
    for (int l = 0; l <= 1; ++l) writer.writeLayer(l, rows);
    writer.close();
    geometry::LayerGeometry layer;
    layer.layer = 1;
    const engine::LayerDetail detail = engine::readLayerDetail(toFsPath(file), layer);
    QVERIFY(detail.tokenTexts.empty());
    QVERIFY2(detail.tokenTextNote.find("no-such-model") != std::string::npos,
             detail.tokenTextNote.c_str());
    LayerDetailView view(std::make_shared<engine::LayerDetail>(detail));
    QVERIFY(view.tokenToolTip(3).startsWith(QStringLiteral("token id 43\ndocument 0, position 4")));
    view.selectToken(3);
    QCOMPARE(view.contextStrip()->highlightedText(), QStringLiteral("⟨43⟩"));
  }

 private:
  QTemporaryDir m_dir;
};

QTEST_MAIN(TokenScatterTest)
#include "token_scatter_test.moc"
