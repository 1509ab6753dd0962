// Issue 22: the Layer Geometry tab stays readable in the workbench window at 1280×800 and at
// 1920×1080 (and at the window's default 1100×700), with the three proxies alone (3 metric panels),
// with the two plugin metrics of this tree (twonn_id, cka_prev: 5 panels) and with many metrics (10
// panels). Real data: a store captured from the built-in default model and scored with bootstrap
// intervals. Checked on the drawn window: every panel's title is its full name and its text
// rectangle lies inside its own panel, above the data (so inside the plot widget, and over no
// other panel), the layer axis's title lies inside the score panel, and the table's main columns
// (layer, m_curv, m_mono, k_eff, S, rank) lie inside the table's viewport at their full width,
// with no horizontal scrolling. (tests/views/layer_geometry_test checks 30 and 80 layers.)

#include <qcustomplot.h>

#include <QDir>
#include <QFontMetrics>
#include <QHeaderView>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include "bridge_fixture.h"
#include "display_text.h"
#include "features/geometry/geometry_feature.h"
#include "features/open/open_feature.h"
#include "geometry/geometry_report.h"
#include "geometry_plot.h"
#include "geometry_table_model.h"
#include "layer_geometry_view.h"
#include "main_window.h"
#include "throw_away_settings.h"

using namespace strata;

namespace {

constexpr int kTimeoutMs = 120000;

/** An axis title as drawn: its text and the rectangle the text covers, in plot pixels. */
struct TitleBox {
  QString text;
  QRect box;
  QRect panel;  // the outer rectangle of the axis rect it belongs to (axis, margins, title)
};

/**
 * The rectangle `axis`'s title text covers. QCustomPlot centres the title on the axis rect
 * along the axis (TextDontClip: a title longer than the axis runs past both ends) and puts it
 * in the margin across it; the across-axis extent is read back from the drawn plot with
 * getPartAt (the title's selection box), the along-axis one from the font's metrics.
 */
QRect titleBox(QCPAxis* axis) {
  const QRect rect = axis->axisRect()->rect();
  const QRect text =
      QFontMetrics(axis->labelFont()).boundingRect(QRect(), Qt::TextDontClip, axis->label());
  const bool vertical = axis->orientation() == Qt::Vertical;
  const QRect outer = axis->axisRect()->outerRect();
  int low = INT_MAX, high = INT_MIN;  // across the axis
  const int scanFrom = vertical ? outer.left() - 200 : outer.top() - 200;
  const int scanTo = vertical ? outer.right() + 200 : outer.bottom() + 200;
  for (int across = scanFrom; across <= scanTo; ++across) {
    const QPointF at =
        vertical ? QPointF(across, rect.center().y()) : QPointF(rect.center().x(), across);
    if (axis->getPartAt(at) == QCPAxis::spAxisLabel)
      low = std::min(low, across), high = std::max(high, across);
  }
  if (low > high) return {};
  if (vertical)
    return QRect(low, rect.center().y() - text.width() / 2, high - low + 1, text.width());
  return QRect(rect.center().x() - text.width() / 2, low, text.width(), high - low + 1);
}

/** The panels' titles as drawn (GeometryPlot draws them as text items above the panels). */
std::vector<TitleBox> panelTitles(GeometryPlot* plot) {
  std::vector<TitleBox> out;
  for (int i = 0; i < plot->titleCount(); ++i) {
    QCPItemText* item = plot->titleItem(i);
    const QRect box =
        QRectF(item->topLeft->pixelPosition(), item->bottomRight->pixelPosition()).toAlignedRect();
    out.push_back({item->text(), box, plot->titlePanel(i)->outerRect()});
  }
  return out;
}

std::vector<TitleBox> axisTitles(QCustomPlot* plot) {
  std::vector<TitleBox> out;
  for (QCPAxisRect* rect : plot->axisRects())
    for (QCPAxis* axis : rect->axes())
      if (axis->visible() && !axis->label().isEmpty())
        out.push_back({axis->label(), titleBox(axis), rect->outerRect()});
  return out;
}

/** Reaches QTableView::sizeHintForColumn (protected) through a member pointer taken in a
 *  derived class, which the language allows. */
struct ColumnHint : QTableView {
  static int of(const QTableView* table, int column) {
    return (table->*(&ColumnHint::sizeHintForColumn))(column);
  }
};

/** The width `column`'s cells need. */
int contentWidth(const QTableView* table, int column) { return ColumnHint::of(table, column); }

QString rectText(const QRect& r) {
  return QStringLiteral("(%1,%2 %3×%4)").arg(r.x()).arg(r.y()).arg(r.width()).arg(r.height());
}

/** `report` with `extra` more plugin metrics (copies of its proxies under long names). */
std::shared_ptr<const geometry::GeometryReport> withMoreMetrics(
    const geometry::GeometryReport& report, int extra) {
  auto more = std::make_shared<geometry::GeometryReport>(report);
  for (int m = 0; m < extra; ++m) {
    more->pluginMetrics.push_back({"extra_metric_with_a_long_name_" + std::to_string(m),
                                   "a copy of a proxy", m % 2 == 0, "test"});
    for (geometry::LayerGeometry& layer : more->layers)
      layer.pluginValues.push_back(m % 3 == 0   ? layer.values.curvature
                                   : m % 3 == 1 ? layer.values.monotonicity
                                                : layer.values.effectiveRank * (1 + m));
  }
  return more;
}

}  // namespace

class PlotLayoutTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    test::useThrowAwaySettings(m_dir);
    const QString corpus = m_dir.filePath("code.txt");
    test::writeCodeCorpus(corpus);
    m_proxiesOnly = m_dir.filePath("proxies.h5");
    m_withPlugins = m_dir.filePath("plugins.h5");
    test::writeScoredStore(m_proxiesOnly, corpus, 1024, {.bootstrapResamples = 8});
    test::writeScoredStore(m_withPlugins, corpus, 1024,
                           {.bootstrapResamples = 8, .pluginMetrics = true});
    const auto report = geometry::readGeometry(toFsPath(m_withPlugins));
    QVERIFY(report);
    QVERIFY2(report->pluginMetrics.size() == 2,
             "the two plugin metrics of this tree (twonn_id, cka_prev) were not computed");
  }

  void axisTitlesStayInsideTheirPanels_data() { sizesAndMetrics(); }
  void axisTitlesStayInsideTheirPanels() {
    QFETCH(int, metricPanels);
    const std::unique_ptr<MainWindow> window = openGeometry();
    QVERIFY(window);
    GeometryPlot* plot =
        window->feature<GeometryFeature>()->geometryView(QDir::cleanPath(storeFile()))->plot();
    QCOMPARE(3 + plot->pluginPanelCount(), metricPanels);
    plot->replot();  // draws now: the title boxes are the drawn ones
    const QRect plotRect = plot->rect();
    const std::vector<TitleBox> titles = panelTitles(plot);
    QCOMPARE(int(titles.size()), metricPanels + 1);  // one per metric panel, S
    for (int i = 0; i < int(titles.size()); ++i) {
      const TitleBox& title = titles[std::size_t(i)];
      const QRect data = plot->titlePanel(i)->rect();
      const QString where = QStringLiteral("“%1” at %2, panel %3, data %4, plot %5")
                                .arg(title.text, rectText(title.box), rectText(title.panel),
                                     rectText(data), rectText(plotRect));
      QVERIFY2(!title.box.isEmpty(), qPrintable("not drawn: " + where));
      QVERIFY2(title.text == plot->fullTitle(i), qPrintable("shortened: " + where));
      QVERIFY2(plotRect.contains(title.box), qPrintable("outside the plot: " + where));
      QVERIFY2(title.panel.contains(title.box), qPrintable("outside its panel: " + where));
      QVERIFY2(title.box.bottom() <= data.top(), qPrintable("over the data: " + where));
      // The title names its panel in full, with its definition, on hover.
      QVERIFY2(plot->titleToolTip(title.box.center()).startsWith(plot->fullTitle(i)),
               qPrintable("no tooltip: " + where));
    }
    // The one axis title left: the layer axis's, inside the score panel.
    const std::vector<TitleBox> axes = axisTitles(plot);
    QCOMPARE(int(axes.size()), 1);
    QCOMPARE(axes.front().text, QStringLiteral("layer"));
    QVERIFY2(plotRect.contains(axes.front().box) && axes.front().panel.contains(axes.front().box),
             qPrintable(rectText(axes.front().box)));
  }

  void mainTableColumnsAreInView_data() { sizesAndMetrics(); }
  void mainTableColumnsAreInView() {
    const std::unique_ptr<MainWindow> window = openGeometry();
    QVERIFY(window);
    LayerGeometryView* view =
        window->feature<GeometryFeature>()->geometryView(QDir::cleanPath(storeFile()));
    QTableView* table = view->table();
    QCOMPARE(table->horizontalScrollBar()->value(), 0);
    const int viewport = table->viewport()->width();
    for (const int column :
         {GeometryTableModel::LayerColumn, GeometryTableModel::CurvatureColumn,
          GeometryTableModel::MonotonicityColumn, GeometryTableModel::EffectiveRankColumn,
          GeometryTableModel::ScoreColumn, GeometryTableModel::RankColumn}) {
      const int left = table->columnViewportPosition(column);
      const int width = table->columnWidth(column);
      const QString what =
          QStringLiteral("column “%1” at %2..%3 of a %4 px viewport (needs %5 px)")
              .arg(view->tableModel()->headerData(column, Qt::Horizontal).toString())
              .arg(left)
              .arg(left + width)
              .arg(viewport)
              .arg(std::max(contentWidth(table, column),
                            table->horizontalHeader()->sectionSizeHint(column)));
      QVERIFY2(!table->isColumnHidden(column), qPrintable(what));
      QVERIFY2(left >= 0 && left + width <= viewport, qPrintable(what));
      // At its full width: squeezing a column until its text is cut short is no fix.
      QVERIFY2(width >= contentWidth(table, column), qPrintable(what));
      QVERIFY2(width >= table->horizontalHeader()->sectionSizeHint(column), qPrintable(what));
    }
  }

 private:
  void sizesAndMetrics() {
    QTest::addColumn<QSize>("size");
    QTest::addColumn<QString>("store");
    QTest::addColumn<int>("extraMetrics");
    QTest::addColumn<int>("metricPanels");
    // 1100×700: the window's own default size (MainWindow) when no saved geometry exists.
    for (const QSize size : {QSize(1100, 700), QSize(1280, 800), QSize(1920, 1080)}) {
      const QByteArray at =
          QByteArray::number(size.width()) + "x" + QByteArray::number(size.height());
      QTest::newRow(at + ", 3 metrics") << size << QStringLiteral("proxies") << 0 << 3;
      QTest::newRow(at + ", 5 metrics") << size << QStringLiteral("plugins") << 0 << 5;
      QTest::newRow(at + ", 10 metrics") << size << QStringLiteral("plugins") << 5 << 10;
    }
  }

  QString storeFile() const {
    const QString store = *static_cast<QString*>(QTest::qData("store", qMetaTypeId<QString>()));
    return store == QLatin1String("proxies") ? m_proxiesOnly : m_withPlugins;
  }

  /** The workbench at the row's size with the row's store open on its Layer Geometry tab;
   *  null (after a failed check) if that did not work. */
  std::unique_ptr<MainWindow> openGeometry() {
    const QSize size = *static_cast<QSize*>(QTest::qData("size", qMetaTypeId<QSize>()));
    const int extraMetrics = *static_cast<int*>(QTest::qData("extraMetrics", qMetaTypeId<int>()));
    auto window = std::make_unique<MainWindow>(MainWindow::Options{.persistSettings = false});
    window->setErrorReporter(
        [](const ErrorReport& report) { QFAIL(qPrintable(report.summary + " " + report.error)); });
    window->resize(size);
    window->show();
    if (!QTest::qWaitForWindowExposed(window.get())) return nullptr;
    QSignalSpy shown(&window->events(), &WorkbenchEvents::geometryShown);
    window->feature<OpenFeature>()->openActivationStore(storeFile());
    if (!QTest::qWaitFor([&] { return shown.count() >= 1 && !window->busy(); }, kTimeoutMs))
      return nullptr;
    LayerGeometryView* view =
        window->feature<GeometryFeature>()->geometryView(QDir::cleanPath(storeFile()));
    if (!view) return nullptr;
    if (extraMetrics > 0) view->setReport(withMoreMetrics(view->report(), extraMetrics));
    QTest::qWait(300);  // queued replots and layouts settle
    // The tab's minimum size must not push the window past the screen it was sized for.
    if (window->size() != size) {
      qWarning("the window grew from %dx%d to %dx%d", size.width(), size.height(), window->width(),
               window->height());
      return nullptr;
    }
    return window;
  }

  QTemporaryDir m_dir;
  QString m_proxiesOnly;
  QString m_withPlugins;
};

QTEST_MAIN(PlotLayoutTest)
#include "plot_layout_test.moc"
