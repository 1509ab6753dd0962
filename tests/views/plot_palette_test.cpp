// Plots follow the theme (views/plot_palette.h): a plot styled by followPalette() takes its
// background, axes, labels, grid, legend, titles and colour-scale axis from its palette and
// restyles when the palette changes; colours with a hue stay the view's; a PNG export shows
// what the screen shows; the views' own plots follow a theme change.

#include "plot_palette.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QImage>
#include <QTemporaryDir>
#include <QTest>

#include "bridge_metrics_plot.h"
#include "plot_export.h"
#include "theme.h"
#include "training_plots.h"

using namespace strata;

namespace {

/** What a plot styled from `palette` must show. */
struct Expected {
  QColor paper, ink;
};
Expected expectedFor(const QPalette& palette) {
  return {palette.color(QPalette::Active, QPalette::Base),
          palette.color(QPalette::Active, QPalette::Text)};
}

/** A plot with every part the helper styles: title, legend, graph with hollow markers,
 *  a black text item, a colour scale, and one axis label coloured by the view. */
struct SamplePlot {
  QCustomPlot plot;
  QCPTextElement* title;
  QCPColorScale* scale;
  QCPItemText* note;
  QCPGraph* graph;
  const QColor hue{31, 119, 180};

  SamplePlot() {
    followPalette(&plot);
    plot.plotLayout()->insertRow(0);
    title = new QCPTextElement(&plot, QStringLiteral("title"));
    plot.plotLayout()->addElement(0, 0, title);
    scale = new QCPColorScale(&plot);
    plot.plotLayout()->addElement(1, 1, scale);
    graph = plot.addGraph();
    graph->setName(QStringLiteral("series"));
    graph->setPen(QPen(hue, 2));
    graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, hue, Qt::white, 6));
    graph->setData({1, 2, 3}, {1, 4, 9});
    plot.legend->setVisible(true);
    plot.yAxis->setLabelColor(hue);  // the view's choice: kept
    note = new QCPItemText(&plot);
    note->setText(QStringLiteral("l* = 3"));
    note->setColor(Qt::black);
    plot.replot();
  }
};

/** The plot's background as it renders (QCustomPlot has no getter for its brush). */
QRgb backgroundOf(QCustomPlot& plot) {
  return plot.toPixmap(200, 150).toImage().pixelColor(1, 1).rgb();
}

void verifyStyled(SamplePlot& s, const Expected& e) {
  QCustomPlot& p = s.plot;
  // Qt delivers an application palette change to the widgets as posted events.
  QTRY_COMPARE(backgroundOf(p), e.paper.rgb());
  QCOMPARE(p.axisRect()->backgroundBrush().color(), e.paper);
  for (QCPAxis* axis : {p.xAxis, p.yAxis, s.scale->axis()}) {
    QCOMPARE(axis->basePen().color(), e.ink);
    QCOMPARE(axis->tickPen().color(), e.ink);
    QCOMPARE(axis->tickLabelColor(), e.ink);
  }
  QCOMPARE(p.xAxis->labelColor(), e.ink);
  QCOMPARE(p.yAxis->labelColor(), s.hue);  // a hue is the view's choice
  QVERIFY(p.xAxis->grid()->pen().color() != e.paper);
  QVERIFY(p.xAxis->grid()->pen().color() != e.ink);  // between the two: visible, quiet
  QCOMPARE(p.legend->brush().color(), e.paper);
  QCOMPARE(p.legend->textColor(), e.ink);
  QCOMPARE(p.legend->item(0)->textColor(), e.ink);
  QCOMPARE(s.title->textColor(), e.ink);
  QCOMPARE(s.note->color(), e.ink);
  QCOMPARE(s.graph->scatterStyle().brush().color(), e.paper);  // hollow markers stay hollow
  QCOMPARE(s.graph->pen().color(), s.hue);
}

}  // namespace

class PlotPaletteTest : public QObject {
  Q_OBJECT

 private slots:
  void cleanup() { applyTheme(ThemeChoice::System); }

  void aPlotTakesItsColoursFromItsPalette() {
    applyTheme(ThemeChoice::Light);
    SamplePlot sample;
    verifyStyled(sample, expectedFor(QApplication::palette()));
    QCOMPARE(backgroundOf(sample.plot), QColor(Qt::white).rgb());  // the light theme as before
  }

  void aPlotFollowsAnApplicationPaletteChange() {
    applyTheme(ThemeChoice::Light);
    SamplePlot sample;
    applyTheme(ThemeChoice::Dark);
    verifyStyled(sample, expectedFor(darkPalette()));
    QVERIFY(QColor(backgroundOf(sample.plot)).lightness() < 60);
    applyTheme(ThemeChoice::Light);
    verifyStyled(sample, expectedFor(QApplication::palette()));
  }

  void aPlotFollowsItsOwnPaletteChange() {
    SamplePlot sample;
    sample.plot.setPalette(darkPalette());
    verifyStyled(sample, expectedFor(darkPalette()));
  }

  void itemsAddedLaterAreStyledAtTheNextReplot() {
    applyTheme(ThemeChoice::Dark);
    SamplePlot sample;
    auto* late = new QCPItemText(&sample.plot);
    late->setColor(Qt::black);
    sample.plot.replot();
    QCOMPARE(late->color(), darkPalette().color(QPalette::Text));
  }

  void aPngExportKeepsTheThemeOnScreen() {
    applyTheme(ThemeChoice::Dark);
    SamplePlot sample;
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("dark.png"));
    savePlot(sample.plot, file);
    const QImage image(file);
    QVERIFY(!image.isNull());
    QCOMPARE(image.pixelColor(2, 2).rgb(), darkPalette().color(QPalette::Base).rgb());
  }

  void theViewsPlotsFollowTheTheme() {
    applyTheme(ThemeChoice::Light);
    TrainingPlots training;
    BridgeMetricsPlot bridge;
    applyTheme(ThemeChoice::Dark);
    const Expected dark = expectedFor(darkPalette());
    for (QCustomPlot* plot : {training.plot(TrainingPlots::LossPlot),
                              training.plot(TrainingPlots::LearningRatePlot), bridge.plot()}) {
      QTRY_COMPARE(backgroundOf(*plot), dark.paper.rgb());
      QCOMPARE(plot->xAxis->basePen().color(), dark.ink);
      QCOMPARE(plot->xAxis->tickLabelColor(), dark.ink);
    }
  }
};

QTEST_MAIN(PlotPaletteTest)
#include "plot_palette_test.moc"
