#include "geometry/layer_screening.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_map>

namespace strata::geometry {

namespace {

/** FNV-1a over the row's values, −0 folded onto +0 so that equal values hash equally. */
uint64_t rowHash(const float* x, int64_t d) {
  uint64_t h = 1469598103934665603ull;
  for (int64_t j = 0; j < d; ++j) {
    const float v = x[j] == 0.0f ? 0.0f : x[j];
    uint32_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    h = (h ^ bits) * 1099511628211ull;
  }
  return h;
}

bool equalRows(const float* a, const float* b, int64_t d) {
  for (int64_t j = 0; j < d; ++j)
    if (a[j] != b[j]) return false;
  return true;
}

}  // namespace

RowScreening screenRows(const HiddenStates& states) {
  RowScreening out;
  out.rows = states.rows;
  out.group.assign(static_cast<size_t>(std::max<int64_t>(states.rows, 0)), -1);
  if (states.data == nullptr || states.rows < 1 || states.cols < 1) return out;
  const int64_t d = states.cols;
  // Rows by hash; each bucket lists the first row of every distinct value with that hash.
  std::unordered_map<uint64_t, std::vector<int64_t>> seen;
  seen.reserve(static_cast<size_t>(states.rows));
  for (int64_t i = 0; i < states.rows; ++i) {
    const float* x = states.data + i * d;
    int64_t bad = 0;
    for (int64_t j = 0; j < d; ++j) {
      if (!std::isfinite(x[j]))
        ++bad;
      else
        out.maxAbs = std::max(out.maxAbs, double(std::fabs(x[j])));
    }
    if (bad) {
      ++out.nonFiniteRows;
      out.nonFiniteValues += bad;
      continue;
    }
    auto& bucket = seen[rowHash(x, d)];
    int64_t first = -1;
    for (int64_t candidate : bucket)
      if (equalRows(states.data + candidate * d, x, d)) first = candidate;
    if (first < 0) {
      bucket.push_back(i);
      ++out.distinctRows;
      first = i;
    }
    out.group[static_cast<size_t>(i)] = first;
  }
  return out;
}

double rescaleFactor(double maxAbs) {
  if (!(maxAbs > 0) || !std::isfinite(maxAbs)) return 1.0;
  if (maxAbs <= std::ldexp(1.0, 32) && maxAbs >= std::ldexp(1.0, -32)) return 1.0;
  int exponent = 0;
  std::frexp(maxAbs, &exponent);         // maxAbs = f·2^exponent, f in [0.5, 1)
  return std::ldexp(1.0, 1 - exponent);  // maxAbs·p = 2f in [1, 2)
}

int64_t distinctRowsOfPositiveWeight(const RowScreening& screening,
                                     std::span<const float> weights) {
  if (weights.empty()) return screening.distinctRows;
  std::vector<char> hit(screening.group.size(), 0);
  int64_t count = 0;
  for (size_t i = 0; i < screening.group.size() && i < weights.size(); ++i) {
    const int64_t g = screening.group[i];
    if (weights[i] > 0 && g >= 0 && !hit[size_t(g)]) hit[size_t(g)] = 1, ++count;
  }
  return count;
}

bool everyPairIsZero(const RowScreening& screening,
                     std::span<const std::pair<int64_t, int64_t>> pairs) {
  for (const auto& [a, b] : pairs)
    if (screening.group[size_t(a)] != screening.group[size_t(b)]) return false;
  return true;
}

}  // namespace strata::geometry
