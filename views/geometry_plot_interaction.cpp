#include <cmath>

#include "geometry_plot.h"

// GeometryPlot and the mouse: the layer under a pixel, hover and click, and the titles'
// tooltips.

namespace strata {
namespace {

constexpr int kClickSlopPixels = 4;

}  // namespace

QString GeometryPlot::titleToolTip(const QPoint& pixel) const {
  for (const PanelTitle& title : m_titles) {
    const QRectF box(title.item->topLeft->pixelPosition(),
                     title.item->bottomRight->pixelPosition());
    const bool onTitle = box.contains(pixel);
    const bool onTicks = title.axis && title.axis->getPartAt(pixel) == QCPAxis::spTickLabels;
    if (onTitle || onTicks)
      return title.toolTip.isEmpty() ? title.full
                                     : title.full + QStringLiteral("\n") + title.toolTip;
  }
  return {};
}

int64_t GeometryPlot::layerAt(const QPoint& pixel) const {
  if (!m_report || m_report->layers.empty()) return -1;
  QCPAxisRect* rect = axisRectAt(pixel);
  if (!rect) return -1;
  const double key = rect->axis(QCPAxis::atBottom)->pixelToCoord(pixel.x());
  for (const geometry::LayerGeometry& layer : m_report->layers)
    if (std::abs(key - static_cast<double>(layer.layer)) <= 0.5) return layer.layer;
  return -1;
}

double GeometryPlot::pixelOf(int64_t layer) const {
  return m_panels[0]->axis(QCPAxis::atBottom)->coordToPixel(static_cast<double>(layer));
}

void GeometryPlot::mousePressEvent(QMouseEvent* event) {
  m_pressPosition = event->pos();
  QCustomPlot::mousePressEvent(event);
}

void GeometryPlot::mouseReleaseEvent(QMouseEvent* event) {
  QCustomPlot::mouseReleaseEvent(event);
  if (event->button() != Qt::LeftButton ||
      (event->pos() - m_pressPosition).manhattanLength() > kClickSlopPixels)
    return;
  const int64_t layer = layerAt(event->pos());
  if (layer >= 0) emit layerClicked(layer);
}

void GeometryPlot::mouseMoveEvent(QMouseEvent* event) {
  QCustomPlot::mouseMoveEvent(event);
  emit layerHovered(layerAt(event->pos()), event->globalPosition().toPoint());
}

}  // namespace strata
