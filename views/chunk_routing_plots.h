#pragma once
// The Chunk routing view's plots, filled from core's ChunkRoutingReport and metrics records:
// the K×T assignment heatmap, the T×T chunk-causal attention mask and the per-chunk load over
// training steps. Display logic only (the mask is the comparison c_m ≤ c_l). GUI thread only.

#include <QString>
#include <vector>

class QCPColorMap;
class QCustomPlot;
class QWidget;

namespace strata {

struct ChunkRoutingReport;
struct MetricsRecord;

/** A QCustomPlot holding one colour map (with a colour scale); `map` receives the map. */
QCustomPlot* makeColorMapPlot(QWidget* parent, const QString& xLabel, const QString& yLabel,
                              QCPColorMap*& map);
/** Key = position t (T columns), value = chunk k (K rows), cell = assignment (one-hot of the
 *  chunk ids when the run has no soft assignments). */
void fillAssignmentMap(QCPColorMap& map, const ChunkRoutingReport& report);
/** Key = attended position m, value = query position l; 1 where chunkIds[m] ≤ chunkIds[l]. */
void fillMaskMap(QCPColorMap& map, const ChunkRoutingReport& report);
/** Appends val_chunk_share_<k> of `records` as graph k (graphs are added as chunks appear). */
void appendChunkLoad(QCustomPlot& plot, const std::vector<MetricsRecord>& records);

}  // namespace strata
