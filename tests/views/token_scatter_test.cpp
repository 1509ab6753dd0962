// Issue 22: the layer detail's principal-plane scatter reads like LIT. Hovering a point shows
// its token's text, document and position; a click selects the token and the context strip
// shows the text around it (same document, ~10 tokens either side) with the token highlighted;
// a click on empty space clears both. The texts come from the store's model tokenizer
// (readLayerDetail), checked on a store captured from the built-in default model.
//
// Issue 41 (the review's defect 7: on SmolLM2 layer 3 ~50 whitespace tokens of huge norm drove
// PC1 and squashed the cloud into a line): the axes are clipped to a robust range with the points
// beyond drawn at the edge and counted, the plot zooms, pans and selects a box, colours by ‖h‖
// too, and lists the outlier tokens — all readable at the default window size and maximised.

#include "token_scatter.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QTextCursor>
#include <QToolTip>
#include <QWheelEvent>
#include <random>

#include "bridge_fixture.h"
#include "display_text.h"
#include "engine/layer_detail.h"
#include "engine/token_context.h"
#include "geometry/geometry_report.h"
#include "io/store/activation_store.h"
#include "layer_detail_view.h"
#include "main_window.h"
#include "throw_away_settings.h"
#include "token_context_strip.h"
#include "token_list.h"
#include "token_strip.h"
#include "window_sizes.h"

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

constexpr int kCloud = 4000;
constexpr int kOutliers = 50;

/**
 * The review's SmolLM2 layer 3 in miniature: rows 0..3999 a normal cloud (σ 5 on PC1, 12 on PC2,
 * truncated at 3σ so that none of it lies beyond the robust range) of ‖h‖ 30 ± 1.5, documents of
 * 100 positions; rows 4000..4049 whitespace tokens (" " and "\n" by turns) far out on PC1
 * (100..835) with ‖h‖ 500..990, as massive activations lie.
 */
std::shared_ptr<engine::LayerDetail> massiveActivationsDetail() {
  auto detail = std::make_shared<engine::LayerDetail>();
  detail->storeFile = "/data/SmolLM2-135M.h5";
  detail->hiddenSize = 576;
  detail->geometry.layer = 3;
  std::mt19937 rng(7);
  std::normal_distribution<double> normal;
  const auto truncated = [&] {
    double z = normal(rng);
    while (std::abs(z) > 3) z = normal(rng);
    return z;
  };
  const auto add = [&](double x, double y, int id, int document, int position, std::string text,
                       double norm) {
    detail->plane.coordinates.push_back(float(x));
    detail->plane.coordinates.push_back(float(y));
    detail->tokenIds.push_back(id);
    detail->documents.push_back(document);
    detail->positions.push_back(position);
    detail->tokenTexts.push_back(std::move(text));
    detail->norms.push_back(float(norm));
  };
  for (int t = 0; t < kCloud; ++t)
    add(5 * truncated(), 12 * truncated(), 1000 + t % 300, t / 100, 1 + t % 100,
        "w" + std::to_string(t), 30 + 0.5 * truncated());
  for (int i = 0; i < kOutliers; ++i)
    add(100 + 15 * i, -20 + 0.7 * i, i % 2 ? 198 : 220, 40 + i, 1, i % 2 ? "\n" : " ",
        500 + 10 * i);
  detail->plane.explained[0] = 0.509;
  detail->plane.explained[1] = 0.057;
  return detail;
}

/** How much of the axis's visible range the cloud's rows (0..kCloud−1) span on `axis` (0, 1). */
double cloudShare(const LayerDetailView& view, int axis) {
  const std::vector<float>& xy = view.detail().plane.coordinates;
  double low = 1e30, high = -1e30;
  for (int t = 0; t < kCloud; ++t)
    low = std::min<double>(low, xy[2 * t + axis]), high = std::max<double>(high, xy[2 * t + axis]);
  const QCPAxis* shown = axis == 0 ? view.scatterPlot()->xAxis : view.scatterPlot()->yAxis;
  return (high - low) / shown->range().size();
}

/** A left-button drag on `plot` from `from` to `to` with `modifiers` held. */
void drag(QCustomPlot* plot, QPoint from, QPoint to, Qt::KeyboardModifiers modifiers = {}) {
  QTest::mousePress(plot, Qt::LeftButton, modifiers, from);
  QTest::mouseMove(plot, (from + to) / 2);
  QTest::mouseMove(plot, to);
  QTest::mouseRelease(plot, Qt::LeftButton, modifiers, to);
}

/** The store rows a TokenList lists, sorted. */
std::vector<int64_t> listedRows(const TokenList& list) {
  std::vector<int64_t> rows;
  for (int i = 0; i < list.rowCount(); ++i) rows.push_back(list.storeRow(i));
  std::sort(rows.begin(), rows.end());
  return rows;
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

  // The review's case: 50 whitespace tokens of huge ‖h‖ far out on PC1. The robust range keeps
  // the cloud over most of each axis and draws exactly those 50 in a strip at the right edge.
  void robustRangeSpreadsTheCloudAndDrawsOutliersAtTheEdge() {
    LayerDetailView view(massiveActivationsDetail());
    show(view);
    TokenScatter* scatter = view.scatter();
    QCustomPlot* plot = view.scatterPlot();
    QCOMPARE(scatter->range(), TokenScatter::Range::Robust);
    const geometry::ScatterClipping& clipping = scatter->clipping();
    QCOMPARE(clipping.clippedCount, int64_t(kOutliers));
    for (std::size_t r = 0; r < clipping.clipped.size(); ++r)
      QCOMPARE(bool(clipping.clipped[r]), r >= std::size_t(kCloud));
    // Counted, and named: which tokens they are is the finding.
    QCOMPARE(
        scatter->clipNote()->text(),
        QStringLiteral("50 of 4,050 points lie beyond the robust range, drawn at its edge (◆): "
                       "↵ ×25, ␣ ×25."));
    QVERIFY2(cloudShare(view, 0) > 0.7, qPrintable(QString::number(cloudShare(view, 0))));
    QVERIFY2(cloudShare(view, 1) > 0.7, qPrintable(QString::number(cloudShare(view, 1))));

    // Each outlier: a diamond in the strip between the bound and the right edge of the axes.
    const QRect axes = plot->axisRect()->rect();
    const double bound = plot->xAxis->coordToPixel(clipping.x.high);
    for (int64_t r = kCloud; r < kCloud + kOutliers; ++r) {
      const QPointF at = view.pixelOf(r);
      QVERIFY2(at.x() > bound + 3 && at.x() < axes.right() - 3 && axes.contains(at.toPoint()),
               qPrintable(QStringLiteral("row %1 at x %2: bound %3, edge %4")
                              .arg(r)
                              .arg(at.x())
                              .arg(bound)
                              .arg(axes.right())));
      QCOMPARE(at.x(), view.pixelOf(kCloud).x());
    }
    int diamonds = 0;
    for (int i = TokenScatter::kColourGroups; i < 2 * TokenScatter::kColourGroups; ++i) {
      diamonds += plot->graph(i)->dataCount();
      QCOMPARE(plot->graph(i)->scatterStyle().shape(), QCPScatterStyle::ssDiamond);
    }
    QCOMPARE(diamonds, kOutliers);
    QCOMPARE(plot->itemCount(), 1);  // a dashed line at the bound they passed (PC1's upper)
    auto* boundLine = qobject_cast<QCPItemStraightLine*>(plot->item(0));
    QVERIFY(boundLine);
    QCOMPARE(boundLine->point1->coords().x(), clipping.x.high);
    QCOMPARE(view.scatterPointCount(), kCloud + kOutliers);
    QVERIFY(view.tokenToolTip(kCloud).contains(QStringLiteral("drawn at its edge: PC1 100")));
    QVERIFY(view.tokenToolTip(kCloud).contains(QStringLiteral("‖h‖ 500")));

    // The full range puts every point at its place: the cloud is the review's narrow band.
    scatter->rangeBox()->setCurrentIndex(
        scatter->rangeBox()->findData(int(TokenScatter::Range::Full)));
    QCOMPARE(scatter->range(), TokenScatter::Range::Full);
    QCOMPARE(scatter->clipping().clippedCount, int64_t(0));
    QVERIFY(scatter->clipNote()->text().startsWith(QStringLiteral("Full range")));
    QCOMPARE(plot->itemCount(), 0);
    QVERIFY2(cloudShare(view, 0) < 0.1, qPrintable(QString::number(cloudShare(view, 0))));
    plot->replot();
    QVERIFY(axes.contains(view.pixelOf(kCloud + kOutliers - 1).toPoint()));
  }

  void colourByChangesEachPointsBrush() {
    LayerDetailView view(massiveActivationsDetail());
    show(view);
    TokenScatter* scatter = view.scatter();
    QCustomPlot* plot = view.scatterPlot();
    const auto brush = [plot](int graph) {
      return plot->graph(graph)->scatterStyle().brush().color();
    };
    // By position (1..100 in the cloud): row 99 (position 100) in the top band, row 0 in the
    // bottom one; rows of one position share a colour.
    QCOMPARE(scatter->colouring(), TokenScatter::Colouring::Position);
    QCOMPARE(scatter->pointColour(99), brush(TokenScatter::kColourGroups - 1));
    QCOMPARE(scatter->pointColour(0), brush(0));
    QCOMPARE(scatter->pointColour(199), scatter->pointColour(99));

    // By ‖h‖, on a log scale from the smallest to the largest: the cloud (‖h‖ 28.5..31.5 of
    // 28.5..990) all in the bottom band, the largest outlier in the top band (as a diamond).
    view.colouringBox()->setCurrentIndex(
        view.colouringBox()->findData(int(TokenScatter::Colouring::Norm)));
    QCOMPARE(scatter->colouring(), TokenScatter::Colouring::Norm);
    auto* scale = qobject_cast<QCPColorScale*>(plot->plotLayout()->element(1, 1));
    QVERIFY(scale);
    QCOMPARE(scale->dataScaleType(), QCPAxis::stLogarithmic);
    const std::vector<float>& norms = view.detail().norms;
    QCOMPARE(scale->dataRange().lower, double(*std::min_element(norms.begin(), norms.end())));
    QCOMPARE(scale->dataRange().upper, 990.0);
    QVERIFY(scale->axis()->label().contains(QStringLiteral("‖h‖")));
    for (int t = 0; t < kCloud; ++t) QCOMPARE(scatter->pointColour(t), brush(0));
    QCOMPARE(scatter->pointColour(kCloud + kOutliers - 1),
             brush(2 * TokenScatter::kColourGroups - 1));
    QVERIFY(scatter->pointColour(99) != brush(TokenScatter::kColourGroups - 1));

    view.setColouring(LayerDetailView::Colouring::TokenId);
    QCOMPARE(scale->dataScaleType(), QCPAxis::stLinear);
    QCOMPARE(scale->axis()->label(), QStringLiteral("token id"));
    QCOMPARE(view.colouringBox()->currentIndex(), 1);
  }

  void boxSelectsExactlyThePointsInsideAndDragPansWheelZooms() {
    LayerDetailView view(spiralDetail());
    show(view);
    TokenScatter* scatter = view.scatter();
    QCustomPlot* plot = view.scatterPlot();
    const QCPRange x = plot->xAxis->range(), y = plot->yAxis->range();
    const QPoint centre = view.pixelOf(20).toPoint();
    // A box around row 20 with no point within 1.5 px of its border (the rows inside are then
    // the same however the pixels round).
    QRect box;
    std::vector<int64_t> inside;
    for (int grow = 0; grow < 30 && box.isNull(); ++grow) {
      const QRect candidate(centre - QPoint(90 + grow, 70 + grow),
                            QSize(181 + 2 * grow, 141 + 2 * grow));
      inside.clear();
      bool clear = true;
      for (int64_t r = 0; r < 40; ++r) {
        const QPointF at = view.pixelOf(r);
        clear &= std::min({std::abs(at.x() - candidate.left()),
                           std::abs(at.x() - candidate.right()), std::abs(at.y() - candidate.top()),
                           std::abs(at.y() - candidate.bottom())}) > 1.5;
        if (at.x() > candidate.left() && at.x() < candidate.right() && at.y() > candidate.top() &&
            at.y() < candidate.bottom())
          inside.push_back(r);
      }
      if (clear) box = candidate;
    }
    QVERIFY(!box.isNull());
    QVERIFY(inside.size() >= 3 && inside.size() < 30);

    QSignalSpy boxed(scatter, &TokenScatter::boxSelected);
    drag(plot, box.topLeft(), box.bottomRight(), Qt::ShiftModifier);
    QCOMPARE(boxed.count(), 1);
    QCOMPARE(scatter->boxSelection(), inside);
    QCOMPARE(plot->xAxis->range(), x);  // the drag drew a box, it did not pan
    QCOMPARE(view.listTabs()->currentWidget(), view.boxList());
    QCOMPARE(view.listTabs()->tabText(1), QStringLiteral("Box (%1)").arg(inside.size()));
    QCOMPARE(listedRows(*view.boxList()), inside);
    QCOMPARE(plot->graph(plot->graphCount() - 2)->dataCount(), int(inside.size()));  // marked
    QCOMPARE(view.selectedRow(), -1);  // a box is no click

    // Without Shift a drag pans; the wheel zooms; Reset View brings the range back.
    drag(plot, centre, centre + QPoint(60, 40));
    QCOMPARE(scatter->boxSelection(), inside);
    QVERIFY(plot->xAxis->range().lower < x.lower - 1e-9 && plot->yAxis->range().lower > y.lower);
    QCOMPARE(plot->xAxis->range().size(), x.size());
    scatter->resetButton()->click();
    QCOMPARE(plot->xAxis->range(), x);
    QWheelEvent wheel(QPointF(centre), plot->mapToGlobal(QPointF(centre)), QPoint(), QPoint(0, 120),
                      Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(plot, &wheel);
    QVERIFY(plot->xAxis->range().size() < 0.9 * x.size());
    QVERIFY(plot->yAxis->range().size() < 0.9 * y.size());
    scatter->resetButton()->click();
    QCOMPARE(plot->yAxis->range(), y);

    // With Box Select on, a plain drag selects: a small box around row 5 alone.
    plot->replot();
    scatter->boxSelectButton()->setChecked(true);
    const QPoint five = view.pixelOf(5).toPoint();
    drag(plot, five - QPoint(4, 4), five + QPoint(4, 4));
    QCOMPARE(scatter->boxSelection(), std::vector<int64_t>{5});
    QCOMPARE(view.boxList()->rowCount(), 1);
    QCOMPARE(view.boxList()->item(0, TokenList::Token)->text(), QStringLiteral("␣w5"));
    // A click (no drag) still selects a point in that mode.
    QTest::mouseClick(plot, Qt::LeftButton, {}, view.pixelOf(12).toPoint());
    QCOMPARE(view.selectedRow(), 12);
  }

  void outliersListNamesTheMassiveActivationTokens() {
    LayerDetailView view(massiveActivationsDetail());
    show(view);
    TokenList* list = view.outlierList();
    // The 50 drawn at the edge, which are also the 20 of largest ‖h‖: largest first, whitespace
    // made visible, each marked ◆.
    QCOMPARE(list->rowCount(), kOutliers);
    QCOMPARE(view.listTabs()->tabText(0), QStringLiteral("Outliers (50)"));
    QCOMPARE(view.listTabs()->currentWidget(), list);
    double previous = 1e30;
    for (int i = 0; i < list->rowCount(); ++i) {
      const int64_t row = list->storeRow(i);
      QCOMPARE(row, int64_t(kCloud + kOutliers - 1 - i));
      QCOMPARE(list->item(i, TokenList::Token)->text(),
               row % 2 ? QStringLiteral("↵") : QStringLiteral("␣"));
      QCOMPARE(list->item(i, TokenList::Edge)->text(), QStringLiteral("◆"));
      const double norm = list->item(i, TokenList::Norm)->data(Qt::DisplayRole).toDouble();
      QCOMPARE(norm, 500.0 + 10 * (row - kCloud));
      QVERIFY(norm <= previous);
      previous = norm;
      QCOMPARE(list->item(i, TokenList::Document)->data(Qt::DisplayRole).toInt(),
               view.detail().documents[std::size_t(row)]);
    }
    // A click on one shows it in context and rings it at the edge.
    list->scrollToItem(list->item(4, TokenList::Token));
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {},
                      list->visualItemRect(list->item(4, TokenList::Token)).center());
    QCOMPARE(view.selectedRow(), int64_t(4045));
    QCOMPARE(view.contextStrip()->highlightedRow(), int64_t(4045));
    QCOMPARE(view.contextStrip()->highlightedText(), QStringLiteral("↵"));
    QCPGraph* ring = view.scatterPlot()->graph(view.scatterPlot()->graphCount() - 1);
    QCOMPARE(ring->data()->at(0)->key, double(view.scatter()->placement()[2 * 4045]));

    // Under the full range nothing is at the edge: the 20 largest ‖h‖ remain, unmarked.
    view.scatter()->setRange(TokenScatter::Range::Full);
    QCOMPARE(list->rowCount(), int(LayerDetailView::kLargestNorms));
    QCOMPARE(view.listTabs()->tabText(0), QStringLiteral("Outliers (20)"));
    QVERIFY(!list->item(0, TokenList::Edge));
    QCOMPARE(list->storeRow(19), int64_t(kCloud + kOutliers - 20));
  }

  void layerDetailFitsAtTheDefaultSizeAndMaximised_data() { testing::addWindowSizeRows(); }
  void layerDetailFitsAtTheDefaultSizeAndMaximised() {
    QFETCH(bool, maximised);
    QFETCH(QSize, size);
    MainWindow window(MainWindow::Options{false});
    auto* view = new LayerDetailView(massiveActivationsDetail());
    window.addTab(view, QStringLiteral("layer-detail-fit"),
                  QStringLiteral("Layer 3 — SmolLM2-135M.h5"));
    if (const QString skip = testing::showForRow(window, maximised); !skip.isEmpty())
      QSKIP(qPrintable(skip));
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    if (size.isValid()) window.resize(size);
    QTest::qWait(300);
    if (!maximised) QCOMPARE(window.size(), size.isValid() ? size : QSize(1100, 700));
    QCOMPARE(window.tabs()->currentWidget(), view);
    TokenScatter* scatter = view->scatter();
    const QRect whole = view->rect();
    const QList<QWidget*> shown = {
        scatter->colouringBox(),    scatter->rangeBox(),  scatter->resetButton(),
        scatter->boxSelectButton(), scatter->clipNote(),  view->scatterPlot(),
        view->listTabs(),           view->contextStrip(), view->exportButton(),
        view->spectrumPlot(),       view->histogramPlot()};
    for (QWidget* widget : shown) {
      const QRect at(widget->mapTo(view, QPoint(0, 0)), widget->size());
      QVERIFY2(widget->isVisible() && whole.contains(at),
               qPrintable(QStringLiteral("%1 at %2,%3 %4×%5 in %6×%7")
                              .arg(widget->metaObject()->className())
                              .arg(at.x())
                              .arg(at.y())
                              .arg(at.width())
                              .arg(at.height())
                              .arg(whole.width())
                              .arg(whole.height())));
    }
    // Controls whole (not squeezed below their text), the note's every line shown.
    for (QWidget* control :
         {static_cast<QWidget*>(scatter->colouringBox()),
          static_cast<QWidget*>(scatter->rangeBox()), static_cast<QWidget*>(scatter->resetButton()),
          static_cast<QWidget*>(scatter->boxSelectButton())})
      QVERIFY2(control->width() >= control->sizeHint().width(),
               qPrintable(QStringLiteral("%1: %2 px of %3")
                              .arg(control->metaObject()->className())
                              .arg(control->width())
                              .arg(control->sizeHint().width())));
    QLabel* note = scatter->clipNote();
    QVERIFY2(note->height() >= note->heightForWidth(note->width()),
             qPrintable(QStringLiteral("note %1 px high, needs %2")
                            .arg(note->height())
                            .arg(note->heightForWidth(note->width()))));
    QTabBar* tabs = view->listTabs()->tabBar();
    for (int i = 0; i < tabs->count(); ++i)
      QVERIFY2(
          tabs->tabRect(i).width() >= tabs->fontMetrics().horizontalAdvance(tabs->tabText(i)) &&
              tabs->rect().contains(tabs->tabRect(i)),
          qPrintable(tabs->tabText(i)));
    const QRect axes = view->scatterPlot()->axisRect()->rect();
    QVERIFY2(axes.width() >= 200 && axes.height() >= 120,
             qPrintable(QStringLiteral("scatter axes %1×%2").arg(axes.width()).arg(axes.height())));
    // Three rows of the Outliers list and two lines of context at least.
    TokenList* list = view->outlierList();
    QVERIFY2(list->viewport()->height() >= 3 * list->verticalHeader()->defaultSectionSize(),
             qPrintable(QStringLiteral("list viewport %1 px").arg(list->viewport()->height())));
    QVERIFY(view->contextStrip()->viewport()->height() >= 2 * view->fontMetrics().lineSpacing());
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
    // Each row's ‖h‖ as stored: row 0's against its stored values.
    QCOMPARE(detail->norms.size(), detail->tokenIds.size());
    const io::ActivationStore stored = io::ActivationStore::open(toFsPath(store));
    const std::vector<float> rows = stored.readLayer(2);
    double squares = 0;
    for (int64_t c = 0; c < detail->hiddenSize; ++c)
      squares += double(rows[std::size_t(c)]) * rows[std::size_t(c)];
    QVERIFY(squares > 0);
    QCOMPARE(detail->norms[0], float(std::sqrt(squares)));

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
