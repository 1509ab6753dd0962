#pragma once
// The Chunk routing view's plots, filled from core's ChunkRoutingReport and metrics records:
// the K×T assignment heatmap, the 2T×2T attention mask the text trains with (block diffusion
// over chunks, computed in core) and the per-chunk load over training steps. Display logic
// only. GUI thread only.

#include <QString>
#include <vector>

class QCPColorMap;
class QCustomPlot;
class QPoint;
class QWidget;

namespace strata {

namespace recipes {
struct ChunkRoutingReport;
}  // namespace recipes
namespace engine {
struct MetricsRecord;
}  // namespace engine

/** A QCustomPlot holding one colour map (with a colour scale); `map` receives the map. */
QCustomPlot* makeColorMapPlot(QWidget* parent, const QString& xLabel, const QString& yLabel,
                              QCPColorMap*& map);
/** The chunk-load plot: step × validation chunk share, its legend in a column right of the
 *  axes so that it never covers a curve (wrapping into more columns past a dozen chunks). */
QCustomPlot* makeChunkLoadPlot(QWidget* parent);
/** The token position of the assignment heatmap's cell under `point` (widget coordinates of the
 *  map's plot), or -1 off the cells. */
int assignmentPositionAt(const QCPColorMap& map, const QPoint& point);
/** Key = position t (T columns), value = chunk k (K rows), cell = assignment (one-hot of the
 *  chunk ids when the run has no soft assignments). */
void fillAssignmentMap(QCPColorMap& map, const recipes::ChunkRoutingReport& report);
/** The report's trainingMask: key = attended column (0..T−1 noisy x_t, T..2T−1 clean x_0),
 *  value = query row in the same order; 1 where the row may attend the column. Dashed lines
 *  separate the two streams. */
void fillMaskMap(QCPColorMap& map, const recipes::ChunkRoutingReport& report);
/** Appends val_chunk_share_<k> of `records` as graph k (graphs are added as chunks appear). */
void appendChunkLoad(QCustomPlot& plot, const std::vector<engine::MetricsRecord>& records);

}  // namespace strata
