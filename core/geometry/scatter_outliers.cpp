#include "geometry/scatter_outliers.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <unordered_map>

namespace strata::geometry {

double quantile(std::vector<double> values, double q) {
  if (!(q >= 0 && q <= 1)) throw std::invalid_argument("a quantile outside [0, 1]");
  std::erase_if(values, [](double v) { return std::isnan(v); });
  if (values.empty()) throw std::invalid_argument("the quantile of no values");
  const double h = q * static_cast<double>(values.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(h));
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(below),
                   values.end());
  const double lower = values[below];
  if (below + 1 >= values.size()) return lower;
  // x_(⌊h⌋+1) is the smallest of the values after the ⌊h⌋-th once nth_element has run.
  const double upper =
      *std::min_element(values.begin() + static_cast<std::ptrdiff_t>(below) + 1, values.end());
  return lower + (h - static_cast<double>(below)) * (upper - lower);
}

AxisBounds clipBounds(const std::vector<double>& values, const ClipRule& rule) {
  const double low = quantile(values, rule.lowQuantile);
  const double high = quantile(values, rule.highQuantile);
  const double margin = rule.widen * (high - low);
  return {std::max(low - margin, quantile(values, 0)),
          std::min(high + margin, quantile(values, 1))};
}

ScatterClipping clipScatter(std::span<const float> xy, const ClipRule& rule) {
  const std::size_t points = xy.size() / 2;
  std::vector<double> xs(points), ys(points);
  for (std::size_t i = 0; i < points; ++i) xs[i] = xy[2 * i], ys[i] = xy[2 * i + 1];
  ScatterClipping clipping;
  clipping.x = clipBounds(xs, rule);
  clipping.y = clipBounds(ys, rule);
  clipping.clipped.resize(points);
  for (std::size_t i = 0; i < points; ++i) {
    // A NaN coordinate is neither inside nor beyond: it stays unclipped (and undrawn).
    const bool beyond = xs[i] < clipping.x.low || xs[i] > clipping.x.high ||
                        ys[i] < clipping.y.low || ys[i] > clipping.y.high;
    clipping.clipped[i] = beyond ? 1 : 0;
    clipping.clippedCount += beyond ? 1 : 0;
  }
  return clipping;
}

std::vector<float> edgePlacement(std::span<const float> xy, const ScatterClipping& clipping,
                                 double xBand, double yBand) {
  std::vector<float> placed(xy.begin(), xy.end());
  const auto place = [](float& v, const AxisBounds& bounds, double band) {
    if (v < bounds.low) v = static_cast<float>(bounds.low - band);
    if (v > bounds.high) v = static_cast<float>(bounds.high + band);
  };
  for (std::size_t i = 0; i + 1 < placed.size(); i += 2) {
    place(placed[i], clipping.x, xBand);
    place(placed[i + 1], clipping.y, yBand);
  }
  return placed;
}

std::vector<float> rowNorms(const HiddenStates& states) {
  std::vector<float> norms(static_cast<std::size_t>(states.rows));
  for (int64_t r = 0; r < states.rows; ++r) {
    const float* row = states.data + r * states.cols;
    double sum = 0;
    for (int64_t c = 0; c < states.cols; ++c) sum += double(row[c]) * row[c];
    norms[static_cast<std::size_t>(r)] = static_cast<float>(std::sqrt(sum));
  }
  return norms;
}

std::vector<int64_t> outlierRows(std::span<const float> norms, std::span<const uint8_t> clipped,
                                 std::size_t largest, std::size_t limit) {
  std::vector<int64_t> rows;
  for (std::size_t r = 0; r < clipped.size(); ++r)
    if (clipped[r]) rows.push_back(static_cast<int64_t>(r));
  if (!norms.empty()) {
    std::vector<int64_t> order(norms.size());
    for (std::size_t r = 0; r < order.size(); ++r) order[r] = static_cast<int64_t>(r);
    const auto key = [&norms](int64_t r) {  // a NaN norm sorts last
      const float n = norms[static_cast<std::size_t>(r)];
      return std::isnan(n) ? -std::numeric_limits<float>::infinity() : n;
    };
    const auto byNorm = [&key](int64_t a, int64_t b) {
      return key(a) != key(b) ? key(a) > key(b) : a < b;
    };
    const std::size_t top = std::min(largest, order.size());
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(top), order.end(),
                      byNorm);
    rows.insert(rows.end(), order.begin(), order.begin() + static_cast<std::ptrdiff_t>(top));
    std::sort(rows.begin(), rows.end(), byNorm);
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  }
  if (rows.size() > limit) rows.resize(limit);
  return rows;
}

std::vector<TokenCount> commonTokens(std::span<const int64_t> rows, std::span<const int32_t> ids,
                                     std::size_t most) {
  std::unordered_map<int32_t, TokenCount> byId;
  for (const int64_t row : rows) {
    const int32_t id = ids[static_cast<std::size_t>(row)];
    TokenCount& entry = byId.try_emplace(id, TokenCount{id, 0, row}).first->second;
    ++entry.count;
  }
  std::vector<TokenCount> counts;
  counts.reserve(byId.size());
  for (const auto& [id, entry] : byId) counts.push_back(entry);
  std::sort(counts.begin(), counts.end(), [](const TokenCount& a, const TokenCount& b) {
    return a.count != b.count ? a.count > b.count : a.id < b.id;
  });
  if (counts.size() > most) counts.resize(most);
  return counts;
}

std::vector<int64_t> rowsInBox(std::span<const float> xy, const AxisBounds& x,
                               const AxisBounds& y) {
  std::vector<int64_t> rows;
  for (std::size_t i = 0; 2 * i + 1 < xy.size(); ++i)
    if (x.contains(xy[2 * i]) && y.contains(xy[2 * i + 1])) rows.push_back(static_cast<int64_t>(i));
  return rows;
}

}  // namespace strata::geometry
