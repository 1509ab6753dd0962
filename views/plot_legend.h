#pragma once
// Where a plot's legend goes when it must not cover the data: out of the axes' inset into a
// column of its own right of them, or a row of its own below them. GUI thread only.

class QCustomPlot;

namespace strata {

/** Moves `plot`'s legend into a column right of the axis rect, which sits in row `row` of the
 *  plot layout, top-aligned (the rest of the column stays empty), `rowsPerColumn` entries a
 *  column before it wraps into the next. The legend is hidden until shown. */
void placeLegendBesideAxes(QCustomPlot& plot, int row, int rowsPerColumn);

/** Moves `plot`'s legend into row `row` of the plot layout, below the axes, as short as its
 *  entries, inset from the plot's edges so that its border is drawn whole (the legend's frame is
 *  drawn on its outer rect: flush with the widget, the right and bottom lines fell outside). The
 *  legend is hidden until shown. */
void placeLegendBelowAxes(QCustomPlot& plot, int row);

/** Lays `plot`'s legend out row by row (columns first) with as many entries a row as fit its
 *  width, one at least: a fixed count clipped long names ("train task loss (smoothed)") at the
 *  default window size. Call before each replot (QCustomPlot::beforeReplot). */
void wrapLegendToWidth(QCustomPlot& plot);

}  // namespace strata
