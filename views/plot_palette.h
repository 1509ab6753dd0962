#pragma once
// Plots that follow the theme. QCustomPlot draws with its own fixed colours (white background,
// black axes), not the widget palette, so in the dark theme every plot would stay a white card.
// followPalette() styles a plot from its palette — background, axis rects, axes, tick labels,
// labels, grid, legend, titles and other text, colour-scale axes — and does it again before
// every replot and whenever the palette changes (the theme, QApplication::setPalette). Exports
// (plot_export.h) render the plot as it is styled, so a PNG or PDF keeps what the user sees.
//
// Which colours change: the plot's own chrome always; beyond that only colours a view left
// neutral (black, grey, white — no hue): text items and legend text written in black become the
// palette's text colour, white-filled scatter markers the plot's background. A colour with a
// hue (a series, a highlighted axis label) is the view's choice and is kept. GUI thread only.

class QCustomPlot;
class QPalette;

namespace strata {

/** Styles `plot` once from `palette` (no replot). */
void applyPlotPalette(QCustomPlot& plot, const QPalette& palette);

/**
 * Styles `plot` from its own palette now, before each replot (so items added later are styled
 * too) and on every QEvent::PaletteChange / ApplicationPaletteChange it receives (then with a
 * queued replot). Call once per plot, right after creating it; a second call does nothing.
 */
void followPalette(QCustomPlot* plot);

}  // namespace strata
