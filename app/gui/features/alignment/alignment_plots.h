#pragma once
// The Alignment view's plots, drawn from AlignmentTables: the per-layer cosine curves over
// steps (one graph per hidden state, coloured by depth; a compared run dashed in the same
// colours), the layer × step heatmap, and the validation loss / masked accuracy of each run.
// Display logic only. Every draw replaces what the plot showed and queues one replot.
// GUI thread only.

#include <QColor>
#include <QList>
#include <QString>
#include <QStringList>
#include <Qt>
#include <limits>

#include "alignment_table.h"

class QCPColorGradient;
class QCPColorMap;
class QCPGraph;
class QCustomPlot;
class QWidget;

namespace strata {

/** The sequential colour map from shallow (dark violet) to deep (yellow): viridis's stops. */
QCPColorGradient depthGradient();
/** The colour of hidden state `layer` of `layerCount` on depthGradient(). */
QColor depthColour(int layer, int layerCount);

/** An empty curves plot: a title row and a legend in columns right of the axes. */
QCustomPlot* makeLayerCurvesPlot(QWidget* parent);
/** An empty heatmap plot (chunk routing's colour-map plot with a title and a labelled colour
 *  scale); `map` receives the map. */
QCustomPlot* makeCosineMapPlot(QWidget* parent, QCPColorMap*& map);
/** An empty loss plot: val_loss on the left axis, val_masked_acc on the right one. */
QCustomPlot* makeLossComparisonPlot(QWidget* parent);

/** One run drawn on a plot: its table, its label for legends, and its line style. */
struct AlignmentCurvesRun {
  const AlignmentTable* table = nullptr;
  QString label;
  Qt::PenStyle style = Qt::SolidLine;
  /** run.json's λ (NaN: none); names the loss plot's lines when it tells the runs apart. */
  double lambda = std::numeric_limits<double>::quiet_NaN();
};

/**
 * Replaces the curves: for each run, one graph per hidden state of `source` (the run's steps
 * as keys, its cosines as values, steps that lack a layer skipped), in the run's pen style.
 * The first run's graphs are named "layer <l>" and fill the legend; later runs' are named
 * "<label>: layer <l>" and kept out of it (the title says which style is which run). The
 * title's parts are joined on one line, or broken into lines where the plot is too narrow.
 * Returns the graphs, [run][layer].
 */
QList<QList<QCPGraph*>> drawLayerCurves(QCustomPlot& plot, const QList<AlignmentCurvesRun>& runs,
                                        CosineSource source, const QStringList& title);

/**
 * Fills `map` with `source`'s table: key = row (one column per logged step, labelled with its
 * step), value = layer; a cell is that step's cosine (NaN, drawn transparent, where not
 * logged). The colour scale (viridis, as depthGradient) spans the cosines shown. The title's
 * parts are joined or broken into lines as the plot's width allows.
 */
void fillCosineMap(QCPColorMap& map, const AlignmentTable& table, CosineSource source,
                   const QStringList& title);

/** Replaces the loss plot's graphs: per run, "<tag>: val_loss" (left axis) and
 *  "<tag>: val_masked_acc" (right axis) in the run's style; the tag is "λ = <lambda>" when
 *  every run has its own λ, else the run's label. */
void drawLossComparison(QCustomPlot& plot, const QList<AlignmentCurvesRun>& runs);

}  // namespace strata
