#pragma once
// What the files of GeometryPlot share (geometry_plot.h lists them): the l* colour, the gaps
// around a panel, the title padding and the marker sizes. Private to those files.

#include <QColor>
#include <QMargins>

namespace strata::geometry_plot_style {

inline const QColor kBestColour(214, 39, 40);
// Below each panel: a little air. Above it: the title strip (stackPanel). The halves of the
// value labels at a panel's top and bottom reach into these gaps, in the left margin, clear of
// the title, which starts at the panel's left edge.
inline constexpr int kGapBelowPanel = 2;
inline const QMargins kTitlePadding(3, 0, 3, 0);
// Marker diameters (the room each needs is geometry_plot_layout.cpp's).
inline constexpr double kFullMarker = 6;
inline constexpr double kSmallMarker = 4;
inline constexpr double kBestRing = 10;
inline constexpr double kBestStar = 16;
inline constexpr double kBestLabelOffset =
    kBestStar / 2 + 3;  // pixels from the l* line to its label

}  // namespace strata::geometry_plot_style
