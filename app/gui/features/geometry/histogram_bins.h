#pragma once
// Histogram binning for the views' plots: data preparation, not geometry. The bin width is
// Freedman–Diaconis' 2·IQR·n^(−1/3), taken on log10 of the values when they are all positive
// and span more than a decade (λ_max of neighbourhoods does), so the bins are log-spaced there.

#include <cstdint>
#include <span>
#include <vector>

namespace strata {

struct Histogram {
  /** counts.size() + 1 ascending bin edges, in the values' own units (also when log-spaced). */
  std::vector<double> edges;
  /** How many values fall in [edges[i], edges[i+1]); the last bin includes its right edge. */
  std::vector<int64_t> counts;
  /** True when the edges are evenly spaced in log10 (plot them on a log axis). */
  bool logarithmic = false;
};

/**
 * Bins the finite values of `values` (non-finite ones are ignored) into between `minBins`
 * and `maxBins` bins. Empty input gives an empty histogram; all-equal values one bin.
 */
Histogram makeHistogram(std::span<const double> values, int minBins = 5, int maxBins = 60);

}  // namespace strata
