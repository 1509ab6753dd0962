#include "histogram_bins.h"

#include <algorithm>
#include <cmath>

namespace strata {
namespace {

/** The q-quantile of sorted values, by linear interpolation between order statistics. */
double quantile(const std::vector<double>& sorted, double q) {
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  const double t = position - static_cast<double>(below);
  return sorted[below] * (1 - t) + sorted[above] * t;
}

}  // namespace

Histogram makeHistogram(std::span<const double> values, int minBins, int maxBins) {
  std::vector<double> finite;
  finite.reserve(values.size());
  for (double v : values)
    if (std::isfinite(v)) finite.push_back(v);
  Histogram histogram;
  if (finite.empty()) return histogram;
  std::sort(finite.begin(), finite.end());

  const bool logarithmic = finite.front() > 0 && finite.back() / finite.front() > 10.0;
  std::vector<double> scaled = finite;  // the space the bins are even in
  if (logarithmic)
    for (double& v : scaled) v = std::log10(v);
  const double low = scaled.front();
  const double high = scaled.back();
  histogram.logarithmic = logarithmic;

  if (!(high > low)) {  // all values equal: one bin around them
    histogram.edges = {finite.front(), finite.front()};
    histogram.counts = {static_cast<int64_t>(finite.size())};
    return histogram;
  }

  // Freedman–Diaconis; an IQR of 0 (mostly equal values) falls back to Sturges' count.
  const double n = static_cast<double>(scaled.size());
  const double iqr = quantile(scaled, 0.75) - quantile(scaled, 0.25);
  int bins = iqr > 0 ? static_cast<int>(std::ceil((high - low) / (2 * iqr * std::cbrt(1 / n))))
                     : static_cast<int>(std::ceil(std::log2(n))) + 1;
  bins = std::clamp(bins, std::max(1, minBins), std::max(1, std::max(minBins, maxBins)));

  const double width = (high - low) / bins;
  histogram.edges.resize(static_cast<std::size_t>(bins) + 1);
  for (int i = 0; i <= bins; ++i) {
    const double edge = i == bins ? high : low + width * i;
    histogram.edges[static_cast<std::size_t>(i)] = logarithmic ? std::pow(10.0, edge) : edge;
  }
  if (logarithmic) {  // exact ends, whatever pow's rounding
    histogram.edges.front() = finite.front();
    histogram.edges.back() = finite.back();
  }
  histogram.counts.assign(static_cast<std::size_t>(bins), 0);
  for (double v : scaled) {
    const int bin = std::min(bins - 1, static_cast<int>((v - low) / width));
    ++histogram.counts[static_cast<std::size_t>(std::max(0, bin))];
  }
  return histogram;
}

}  // namespace strata
