#include "chunk_routing_plots.h"

#include <qcustomplot.h>

#include <cmath>
#include <string>

#include "engine/metrics_log.h"
#include "plot_legend.h"
#include "plot_palette.h"
#include "recipes/dcdm/chunk_routing.h"
#include "token_strip.h"

namespace strata {
namespace {

constexpr int kLegendRows = 8;  // chunks per legend column: K = 16 fits a 160-pixel plot

}  // namespace

QCustomPlot* makeColorMapPlot(QWidget* parent, const QString& xLabel, const QString& yLabel,
                              QCPColorMap*& map) {
  auto* plot = new QCustomPlot(parent);
  followPalette(plot);
  plot->setMinimumHeight(160);
  plot->xAxis->setLabel(xLabel);
  plot->yAxis->setLabel(yLabel);
  plot->yAxis->setRangeReversed(true);  // row 0 on top, like a matrix
  map = new QCPColorMap(plot->xAxis, plot->yAxis);
  auto* scale = new QCPColorScale(plot);
  plot->plotLayout()->addElement(0, 1, scale);
  map->setColorScale(scale);
  map->setGradient(QCPColorGradient(QCPColorGradient::gpThermal));
  map->setInterpolate(false);
  return plot;
}

QCustomPlot* makeChunkLoadPlot(QWidget* parent) {
  auto* plot = new QCustomPlot(parent);
  followPalette(plot);
  plot->setMinimumHeight(160);
  plot->xAxis->setLabel(QObject::tr("step"));
  plot->yAxis->setLabel(QObject::tr("validation chunk share"));
  // The legend beside the axes, not over the curves (inside, it hid the last quarter of them).
  placeLegendBesideAxes(*plot, 0, kLegendRows);
  return plot;
}

int assignmentPositionAt(const QCPColorMap& map, const QPoint& point) {
  const QCPColorMapData& data = *map.data();
  if (data.keySize() == 0 || !map.keyAxis()->axisRect()->rect().contains(point)) return -1;
  const double key = map.keyAxis()->pixelToCoord(point.x());
  const double value = map.valueAxis()->pixelToCoord(point.y());
  const auto position = static_cast<int>(std::lround(key));
  const auto row = static_cast<int>(std::lround(value));
  if (position < 0 || position >= data.keySize() || row < 0 || row >= data.valueSize()) return -1;
  return position;
}

namespace {

void resize(QCPColorMap& map, int keys, int values) {
  map.data()->setSize(keys, values);
  map.data()->setRange(QCPRange(0, std::max(keys - 1, 0)), QCPRange(0, std::max(values - 1, 0)));
}

void finish(QCPColorMap& map, double low, double high) {
  map.setDataRange(QCPRange(low, high));
  map.parentPlot()->rescaleAxes();
  map.parentPlot()->xAxis->setRange(map.parentPlot()->xAxis->range().lower - 0.5,
                                    map.parentPlot()->xAxis->range().upper + 0.5);
  map.parentPlot()->yAxis->setRange(map.parentPlot()->yAxis->range().lower - 0.5,
                                    map.parentPlot()->yAxis->range().upper + 0.5);
  map.parentPlot()->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace

void fillAssignmentMap(QCPColorMap& map, const recipes::ChunkRoutingReport& report) {
  const int tokens = static_cast<int>(report.chunkIds.size());
  const int chunks = static_cast<int>(std::max<int64_t>(report.chunks, 1));
  resize(map, tokens, chunks);
  for (int t = 0; t < tokens; ++t)
    for (int k = 0; k < chunks; ++k) {
      const auto& row = static_cast<size_t>(t) < report.assignments.size()
                            ? report.assignments[static_cast<size_t>(t)]
                            : std::vector<float>();
      const double value = static_cast<size_t>(k) < row.size()
                               ? static_cast<double>(row[static_cast<size_t>(k)])
                               : (report.chunkIds[static_cast<size_t>(t)] == k ? 1.0 : 0.0);
      map.data()->setCell(t, k, value);
    }
  finish(map, 0.0, 1.0);
}

void fillMaskMap(QCPColorMap& map, const recipes::ChunkRoutingReport& report) {
  const int size = static_cast<int>(report.trainingMask.size());
  resize(map, size, size);
  for (int row = 0; row < size; ++row) {
    const auto& cells = report.trainingMask[static_cast<size_t>(row)];
    for (int column = 0; column < size; ++column)
      map.data()->setCell(column, row, cells[static_cast<size_t>(column)] ? 1.0 : 0.0);
  }
  // The stream boundary (noisy | clean) on both axes; earlier lines are replaced.
  QCustomPlot& plot = *map.parentPlot();
  for (int i = plot.itemCount() - 1; i >= 0; --i)
    if (qobject_cast<QCPItemStraightLine*>(plot.item(i))) plot.removeItem(i);
  const double boundary = size / 2 - 0.5;
  QPen pen(plot.xAxis->basePen().color(), 1, Qt::DashLine);
  for (const bool vertical : {true, false}) {
    auto* line = new QCPItemStraightLine(&plot);
    line->setPen(pen);
    line->point1->setCoords(vertical ? boundary : 0, vertical ? 0 : boundary);
    line->point2->setCoords(vertical ? boundary : 1, vertical ? 1 : boundary);
  }
  finish(map, 0.0, 1.0);
}

void appendChunkLoad(QCustomPlot& plot, const std::vector<engine::MetricsRecord>& records) {
  for (const engine::MetricsRecord& record : records) {
    int chunks = 0;
    while (record.has("val_chunk_share_" + std::to_string(chunks))) ++chunks;
    for (int k = 0; k < chunks; ++k) {
      const std::string name = "val_chunk_share_" + std::to_string(k);
      while (plot.graphCount() <= k) {
        const int index = plot.graphCount();
        QCPGraph* graph = plot.addGraph();
        graph->setName(QObject::tr("chunk %1").arg(index));
        graph->setPen(QPen(TokenStrip::chunkColour(index, chunks).darker(160), 2));
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
      }
      plot.graph(k)->addData(static_cast<double>(record.step), record.value(name));
    }
  }
  if (records.empty()) return;
  plot.legend->setVisible(plot.graphCount() > 0);
  plot.rescaleAxes();
  plot.replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace strata
