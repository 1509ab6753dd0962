#include "plot_palette.h"

#include <qcustomplot.h>

#include <QEvent>
#include <QPalette>

namespace strata {
namespace {

const char* const kFollowing = "strataFollowsPalette";

/** No hue to speak of: black, white or a grey (QCustomPlot's defaults, Qt::black labels). */
bool neutral(const QColor& colour) { return colour.hslSaturation() < 40; }

/** `from` moved `share` of the way towards `to`, opaque. */
QColor mix(const QColor& from, const QColor& to, double share) {
  return QColor::fromRgbF(static_cast<float>(from.redF() + (to.redF() - from.redF()) * share),
                          static_cast<float>(from.greenF() + (to.greenF() - from.greenF()) * share),
                          static_cast<float>(from.blueF() + (to.blueF() - from.blueF()) * share));
}

QPen recoloured(QPen pen, const QColor& colour) {
  pen.setColor(colour);
  return pen;
}

struct PlotColours {
  QColor paper;    ///< background: the palette's Base (white in the light theme, as before)
  QColor ink;      ///< axes, labels, text: the palette's Text
  QColor grid;     ///< major grid and zero line: a quarter of the way from paper to ink
  QColor subGrid;  ///< minor grid: fainter
};

PlotColours coloursOf(const QPalette& palette) {
  PlotColours c;
  c.paper = palette.color(QPalette::Active, QPalette::Base);
  c.ink = palette.color(QPalette::Active, QPalette::Text);
  c.grid = mix(c.paper, c.ink, 0.22);
  c.subGrid = mix(c.paper, c.ink, 0.12);
  return c;
}

void styleAxis(QCPAxis& axis, const PlotColours& c) {
  axis.setBasePen(recoloured(axis.basePen(), c.ink));
  axis.setTickPen(recoloured(axis.tickPen(), c.ink));
  axis.setSubTickPen(recoloured(axis.subTickPen(), c.ink));
  if (neutral(axis.tickLabelColor())) axis.setTickLabelColor(c.ink);
  if (neutral(axis.labelColor())) axis.setLabelColor(c.ink);
  if (QCPGrid* grid = axis.grid()) {
    grid->setPen(recoloured(grid->pen(), c.grid));
    grid->setSubGridPen(recoloured(grid->subGridPen(), c.subGrid));
    grid->setZeroLinePen(recoloured(grid->zeroLinePen(), c.grid));
  }
}

void styleAxisRect(QCPAxisRect& rect, const PlotColours& c) {
  rect.setBackground(QBrush(c.paper));
  for (QCPAxis* axis : rect.axes()) styleAxis(*axis, c);
}

void styleLegend(QCPLegend& legend, const PlotColours& c) {
  legend.setBrush(QBrush(c.paper));
  legend.setBorderPen(recoloured(legend.borderPen(), c.ink));
  if (neutral(legend.textColor())) legend.setTextColor(c.ink);
  for (int i = 0; i < legend.itemCount(); ++i)
    if (QCPAbstractLegendItem* item = legend.item(i); item && neutral(item->textColor()))
      item->setTextColor(c.ink);
}

void styleElement(QCPLayoutElement* element, const PlotColours& c) {
  if (auto* rect = qobject_cast<QCPAxisRect*>(element)) {
    styleAxisRect(*rect, c);
  } else if (auto* legend = qobject_cast<QCPLegend*>(element)) {
    styleLegend(*legend, c);
  } else if (auto* text = qobject_cast<QCPTextElement*>(element)) {
    if (neutral(text->textColor())) text->setTextColor(c.ink);
  } else if (auto* scale = qobject_cast<QCPColorScale*>(element)) {
    if (QCPAxis* axis = scale->axis()) styleAxis(*axis, c);
  }
}

class PaletteFollower final : public QObject {
 public:
  explicit PaletteFollower(QCustomPlot* plot) : QObject(plot), m_plot(plot) {}

  bool eventFilter(QObject* watched, QEvent* event) override {
    if (watched == m_plot && (event->type() == QEvent::PaletteChange ||
                              event->type() == QEvent::ApplicationPaletteChange)) {
      applyPlotPalette(*m_plot, m_plot->palette());
      m_plot->replot(QCustomPlot::rpQueuedReplot);
    }
    return false;
  }

 private:
  QCustomPlot* m_plot;
};

}  // namespace

void applyPlotPalette(QCustomPlot& plot, const QPalette& palette) {
  const PlotColours c = coloursOf(palette);
  plot.setBackground(QBrush(c.paper));
  for (QCPLayoutElement* element : plot.plotLayout()->elements(true)) styleElement(element, c);
  if (plot.legend) styleLegend(*plot.legend, c);  // also when taken out of every layout
  for (int i = 0; i < plot.itemCount(); ++i)
    if (auto* text = qobject_cast<QCPItemText*>(plot.item(i)); text && neutral(text->color()))
      text->setColor(c.ink);
  // Hollow markers (a white fill inside a coloured outline) stay hollow on a dark background.
  for (int i = 0; i < plot.graphCount(); ++i) {
    QCPGraph* graph = plot.graph(i);
    QCPScatterStyle scatter = graph->scatterStyle();
    if (scatter.isNone() || scatter.brush().style() != Qt::SolidPattern ||
        !neutral(scatter.brush().color()))
      continue;
    scatter.setBrush(QBrush(c.paper));
    graph->setScatterStyle(scatter);
  }
}

void followPalette(QCustomPlot* plot) {
  if (!plot || plot->property(kFollowing).toBool()) return;
  plot->setProperty(kFollowing, true);
  auto* follower = new PaletteFollower(plot);
  plot->installEventFilter(follower);
  QObject::connect(plot, &QCustomPlot::beforeReplot, follower,
                   [plot] { applyPlotPalette(*plot, plot->palette()); });
  applyPlotPalette(*plot, plot->palette());
}

}  // namespace strata
