#include "geometry/layer_screening.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

namespace strata::geometry {

namespace {

/**
 * FNV-1a over the row's values in four interleaved lanes (columns j ≡ 0, 1, 2, 3 mod 4, so four
 * independent multiply chains instead of one), −0 folded onto +0 so that equal values hash
 * equally. The hash only sorts rows into buckets: equality is always checked value by value.
 */
uint64_t rowHash(const float* x, int64_t d) {
  constexpr uint64_t kPrime = 1099511628211ull;
  uint64_t h[4] = {1469598103934665603ull, 1469598103934665603ull ^ 1, 1469598103934665603ull ^ 2,
                   1469598103934665603ull ^ 3};
  const auto bitsOf = [](float value) {
    const float v = value == 0.0f ? 0.0f : value;
    uint32_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    return bits;
  };
  int64_t j = 0;
  for (; j + 4 <= d; j += 4)
    for (int lane = 0; lane < 4; ++lane) h[lane] = (h[lane] ^ bitsOf(x[j + lane])) * kPrime;
  for (; j < d; ++j) h[0] = (h[0] ^ bitsOf(x[j])) * kPrime;
  return ((h[0] * kPrime ^ h[1]) * kPrime ^ h[2]) * kPrime ^ h[3];
}

bool equalRows(const float* a, const float* b, int64_t d) {
  for (int64_t j = 0; j < d; ++j)
    if (a[j] != b[j]) return false;
  return true;
}

/** The entries of one row that are not finite, and max |x| over those that are. Compiled for
 *  AVX-512 and AVX2 as well; a maximum does not depend on the order it is taken in. */
[[gnu::target_clones("avx512f", "avx2", "default")]] int64_t finiteMax(const float* x, int64_t d,
                                                                       float& maxAbs) {
  int64_t bad = 0;
  float m = 0;
  for (int64_t j = 0; j < d; ++j) {
    const float a = std::fabs(x[j]);
    const bool finite = a <= std::numeric_limits<float>::max();
    bad += finite ? 0 : 1;
    m = finite && a > m ? a : m;
  }
  maxAbs = m;
  return bad;
}

}  // namespace

RowScreening screenRows(const HiddenStates& states) {
  RowScreening out;
  out.rows = states.rows;
  out.group.assign(static_cast<size_t>(std::max<int64_t>(states.rows, 0)), -1);
  if (states.data == nullptr || states.rows < 1 || states.cols < 1) return out;
  const int64_t n = states.rows, d = states.cols;
  // Per row, in parallel: its non-finite entries, its largest |x|, and (finite rows) its hash.
  std::vector<int64_t> bad(static_cast<size_t>(n));
  std::vector<float> largest(static_cast<size_t>(n));
  std::vector<std::pair<uint64_t, int64_t>> hashed(static_cast<size_t>(n));
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    const float* x = states.data + i * d;
    bad[i] = finiteMax(x, d, largest[i]);
    hashed[i] = {bad[i] ? 0 : rowHash(x, d), i};
  }
  for (int64_t i = 0; i < n; ++i) {
    out.maxAbs = std::max(out.maxAbs, double(largest[i]));
    if (bad[i]) {
      ++out.nonFiniteRows;
      out.nonFiniteValues += bad[i];
    }
  }
  // Rows sorted by (hash, index): within a run of one hash, each row joins the first earlier row
  // of the run equal to it, or starts a group of its own, so a group's id is its lowest row.
  std::erase_if(hashed, [&](const std::pair<uint64_t, int64_t>& h) { return bad[h.second] > 0; });
  std::sort(hashed.begin(), hashed.end());
  std::vector<int64_t> firsts;  // the groups started so far in the current run
  for (size_t r = 0; r < hashed.size(); ++r) {
    if (r == 0 || hashed[r].first != hashed[r - 1].first) firsts.clear();
    const int64_t i = hashed[r].second;
    int64_t first = -1;
    for (int64_t candidate : firsts)
      if (equalRows(states.data + candidate * d, states.data + i * d, d)) {
        first = candidate;
        break;
      }
    if (first < 0) {
      firsts.push_back(i);
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
