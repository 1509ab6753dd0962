#pragma once
// The layer detail scatter's outliers (issue 41): where to clip each principal axis so that a few
// tokens of huge norm — massive activations (Sun et al. 2024, "Massive Activations in Large
// Language Models"), often whitespace or delimiter tokens — do not squash the rest of the cloud
// into a line; which points lie beyond; where they are drawn instead; each row's norm; which rows
// to list as outliers. Plain arithmetic on the N×2 plane and the N×d rows, no Qt and no torch:
// the view only draws what these return.

#include <cstdint>
#include <span>
#include <vector>

#include "geometry/proxy_options.h"

namespace strata::geometry {

/**
 * numpy's default quantile ("linear", Hyndman & Fan's type 7): with x_(0) ≤ … ≤ x_(n−1) the
 * sorted values and h = q·(n−1), Q(q) = x_(⌊h⌋) + (h − ⌊h⌋)·(x_(⌊h⌋+1) − x_(⌊h⌋)). NaNs are
 * left out. Throws std::invalid_argument when no value remains or q is outside [0, 1].
 */
double quantile(std::vector<double> values, double q);

/**
 * How an axis of the scatter is clipped: from the quantiles [Q(lowQuantile), Q(highQuantile)],
 * widened on either side by `widen` times their distance, never beyond the data's extent.
 */
struct ClipRule {
  double lowQuantile = 0;
  double highQuantile = 1;
  double widen = 0;
};

/** No clipping: Q(0) and Q(1) are the extremes. */
inline constexpr ClipRule kFullRange{0.0, 1.0, 0.0};
/** The plain 1–99 % quantile clip: 2 % of a clean cloud's points per axis lie beyond it. */
inline constexpr ClipRule kPercentileClip{0.01, 0.99, 0.0};
/**
 * The default: the 5–95 % range widened by half its width each side. A normal cloud's 5–95 %
 * range is ±1.645σ, so the bounds sit at ±3.29σ and clip 0.1 % of its points; up to 5 % of the
 * points may be outliers on each side before they move the bounds at all (the review's SmolLM2
 * layer 3 has 1.2 % whitespace tokens, all on one side of PC1, enough to defeat a 1–99 % clip).
 */
inline constexpr ClipRule kRobustClip{0.05, 0.95, 0.5};

struct AxisBounds {
  double low = 0;
  double high = 0;
  bool contains(double value) const { return value >= low && value <= high; }
};

/** The bounds `rule` gives `values` (NaNs left out; throws std::invalid_argument for none). */
AxisBounds clipBounds(const std::vector<double>& values, const ClipRule& rule);

/** A scatter's clipping: per axis the bounds, per point whether it lies beyond either. */
struct ScatterClipping {
  AxisBounds x;
  AxisBounds y;
  std::vector<uint8_t> clipped;  // one per point: 1 when beyond x's or y's bounds
  int64_t clippedCount = 0;
};

/** Clips the N×2 row-major `xy` (N ≥ 1) by `rule`, each axis on its own. */
ScatterClipping clipScatter(std::span<const float> xy, const ClipRule& rule);

/**
 * Where the scatter draws each point: a coordinate beyond its axis's bounds moves to `band`
 * beyond the bound it passed (into a strip along the plot's edge), the others stay. N×2.
 */
std::vector<float> edgePlacement(std::span<const float> xy, const ScatterClipping& clipping,
                                 double xBand, double yBand);

/** ‖h‖₂ of every row of `states` (N values), accumulated in double. */
std::vector<float> rowNorms(const HiddenStates& states);

/**
 * The rows to list as outliers: every clipped row and the `largest` rows of largest norm, each
 * once, by norm descending (ties: the lower row first), at most `limit`. Without norms (empty
 * `norms`) the clipped rows in order.
 */
std::vector<int64_t> outlierRows(std::span<const float> norms, std::span<const uint8_t> clipped,
                                 std::size_t largest, std::size_t limit);

/** A token among some rows: its id, how many of the rows hold it, and the first of them. */
struct TokenCount {
  int32_t id = 0;
  int64_t count = 0;
  int64_t firstRow = -1;
};

/**
 * How often each token id (`ids[row]`) occurs among `rows`: the `most` most frequent, by count
 * descending (ties: the smaller id first). Which tokens the outliers are, at a glance.
 */
std::vector<TokenCount> commonTokens(std::span<const int64_t> rows, std::span<const int32_t> ids,
                                     std::size_t most);

/** The points of N×2 `xy` inside the box [x.low, x.high] × [y.low, y.high], in row order. */
std::vector<int64_t> rowsInBox(std::span<const float> xy, const AxisBounds& x, const AxisBounds& y);

}  // namespace strata::geometry
