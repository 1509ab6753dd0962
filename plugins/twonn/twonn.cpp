#include "twonn.h"

#include <cblas.h>
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace strata_plugins {
namespace {

constexpr int kCandidates = 4;  // float-Gram candidates per row, re-measured in double

/** Exact squared distance in double. */
double squaredDistance(const float* a, const float* b, int64_t d) {
  double s = 0;
  for (int64_t k = 0; k < d; ++k) {
    const double t = double(a[k]) - double(b[k]);
    s += t * t;
  }
  return s;
}

/** FNV-1a over a row's 64-bit words in four interleaved lanes (four independent multiply
 *  chains), then its tail bytes: a bucket for bitwise comparison, never a verdict. */
uint64_t rowHash(const float* row, int64_t d) {
  constexpr uint64_t kPrime = 1099511628211ull, kBasis = 1469598103934665603ull;
  uint64_t h[4] = {kBasis, kBasis ^ 1, kBasis ^ 2, kBasis ^ 3};
  const auto* bytes = reinterpret_cast<const unsigned char*>(row);
  const size_t size = size_t(d) * sizeof(float);
  size_t at = 0;
  for (; at + 32 <= size; at += 32)
    for (int lane = 0; lane < 4; ++lane) {
      uint64_t word = 0;
      std::memcpy(&word, bytes + at + 8 * lane, 8);
      h[lane] = (h[lane] ^ word) * kPrime;
    }
  for (; at < size; ++at) h[0] = (h[0] ^ bytes[at]) * kPrime;
  return ((h[0] * kPrime ^ h[1]) * kPrime ^ h[2]) * kPrime ^ h[3];
}

/**
 * Which rows repeat an earlier row bitwise: the rows hashed in parallel, then sorted by
 * (hash, index) so that each row is compared only with the earlier rows of its hash.
 */
std::vector<unsigned char> copiesOfEarlierRows(const float* rows, int64_t n, int64_t d) {
  std::vector<std::pair<uint64_t, int64_t>> hashed(static_cast<size_t>(n));
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) hashed[size_t(i)] = {rowHash(rows + i * d, d), i};
  std::sort(hashed.begin(), hashed.end());
  std::vector<unsigned char> copy(static_cast<size_t>(n), 0);
  const size_t bytes = size_t(d) * sizeof(float);
  for (size_t r = 0; r < hashed.size(); ++r) {
    const int64_t i = hashed[r].second;
    for (size_t e = r; e-- > 0 && hashed[e].first == hashed[r].first;) {
      const int64_t earlier = hashed[e].second;
      if (!copy[size_t(earlier)] && std::memcmp(rows + earlier * d, rows + i * d, bytes) == 0) {
        copy[size_t(i)] = 1;
        break;
      }
    }
  }
  return copy;
}

/** A row's kCandidates smallest approximate squared distances so far, ascending. */
struct Candidates {
  std::pair<float, int64_t> best[kCandidates];
  Candidates() {
    for (auto& b : best) b = {std::numeric_limits<float>::infinity(), -1};
  }
  /** Offers row j at the approximate squared distance `approx`: strictly closer only, so at
   *  equal values the row offered first (offers come in ascending j) stays. */
  void offer(float approx, int64_t j) {
    if (approx >= best[kCandidates - 1].first) return;
    int slot = kCandidates - 1;
    while (slot > 0 && best[slot - 1].first > approx) best[slot] = best[slot - 1], --slot;
    best[slot] = {approx, j};
  }
};

/** Whether the sixteen-lane scans below may run (AVX-512F, the OS saving its registers). */
bool hasAvx512f() {
  static const bool available = __builtin_cpu_supports("avx512f");
  return available;
}

// The scans below pass a candidate exactly when Candidates::offer would take it: the same float
// operations in the same order (base + norm, then − 2·dot; ×2 is exact, so a fused multiply-add
// rounds alike) and its test negated, !(approx ≥ limit), which NaN passes as it does there.
// Most candidates of a row lie beyond its fourth best once the first blocks are in: sixteen are
// dismissed at once instead of one at a time.

/** The first c in [c, n) whose base + norms[c] − 2·dot[c] offer would take under `limit`, or n. */
__attribute__((target("avx512f"))) int64_t firstTaken(const float* dot, const float* norms,
                                                      float base, float limit, int64_t c,
                                                      int64_t n) {
  const __m512 b = _mm512_set1_ps(base), l = _mm512_set1_ps(limit), two = _mm512_set1_ps(2.0f);
  for (; c + 16 <= n; c += 16) {
    const __m512 approx = _mm512_sub_ps(_mm512_add_ps(b, _mm512_loadu_ps(norms + c)),
                                        _mm512_mul_ps(two, _mm512_loadu_ps(dot + c)));
    const __mmask16 taken = _mm512_cmp_ps_mask(approx, l, _CMP_NGE_UQ);
    if (taken != 0) return c + __builtin_ctz(taken);
  }
  for (; c < n; ++c)
    if (!(base + norms[c] - 2 * dot[c] >= limit)) return c;
  return n;
}

/**
 * Row `row`'s products with columns [first, last) of a block offered to those columns' own
 * candidates, sixteen columns at a time against their current limits (`limits`, one per column
 * from `first`, kept up to date here).
 */
__attribute__((target("avx512f"))) void offerToColumns(const float* dot, const float* norms,
                                                       float rowNorm, int64_t row, int64_t first,
                                                       int64_t last, Candidates* candidates,
                                                       float* limits) {
  const __m512 b = _mm512_set1_ps(rowNorm), two = _mm512_set1_ps(2.0f);
  int64_t c = first;
  for (; c + 16 <= last; c += 16) {
    const __m512 approx = _mm512_sub_ps(_mm512_add_ps(_mm512_loadu_ps(norms + c), b),
                                        _mm512_mul_ps(two, _mm512_loadu_ps(dot + c)));
    auto taken =
        uint32_t(_mm512_cmp_ps_mask(approx, _mm512_loadu_ps(limits + (c - first)), _CMP_NGE_UQ));
    for (; taken != 0; taken &= taken - 1) {
      const int64_t at = c + __builtin_ctz(taken);
      candidates[at].offer(norms[at] + rowNorm - 2 * dot[at], row);
      limits[at - first] = candidates[at].best[kCandidates - 1].first;
    }
  }
  for (; c < last; ++c) candidates[c].offer(norms[c] + rowNorm - 2 * dot[c], row);
}

/**
 * r2/r1 of row i from its candidates, measured exactly in double. None when fewer than two
 * neighbours exist or r1 = 0 (rows equal in value, e.g. ±0).
 */
std::optional<double> nearestRatio(const float* rows, const Candidates& candidates, int64_t i,
                                   int64_t d) {
  double exact[kCandidates];
  int found = 0;
  for (const auto& b : candidates.best)
    if (b.second >= 0) exact[found++] = squaredDistance(rows + i * d, rows + b.second * d, d);
  for (int a = 1; a < found; ++a)  // insertion sort of at most kCandidates values
    for (int b = a; b > 0 && exact[b - 1] > exact[b]; --b) std::swap(exact[b - 1], exact[b]);
  if (found < 2 || exact[0] <= 0) return std::nullopt;
  return std::sqrt(exact[1] / exact[0]);
}

}  // namespace

TwoNNRatios twoNNRatios(const float* input, int64_t total, int64_t d) {
  if (total < 3)
    throw std::invalid_argument("TwoNN needs at least 3 points, got " + std::to_string(total));
  // One copy of each distinct row (bitwise), in order of first occurrence; the input itself
  // when no row repeats (the usual case, no copy made).
  const std::vector<unsigned char> copy = copiesOfEarlierRows(input, total, d);
  std::vector<float> distinct;
  const float* rows = input;
  const int64_t n = total - std::count(copy.begin(), copy.end(), 1);
  if (n < total) {
    distinct.reserve(size_t(n * d));
    for (int64_t i = 0; i < total; ++i)
      if (!copy[size_t(i)]) distinct.insert(distinct.end(), input + i * d, input + (i + 1) * d);
    rows = distinct.data();
  }
  TwoNNRatios out;
  out.duplicates = total - n;
  if (n < 3)
    throw std::invalid_argument("TwoNN needs at least 3 distinct points, got " + std::to_string(n) +
                                " (" + std::to_string(out.duplicates) + " of " +
                                std::to_string(total) + " rows are copies of another row)");
  std::vector<float> norms(static_cast<size_t>(n), 0.0f);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    double s = 0;
    for (int64_t k = 0; k < d; ++k) s += double(rows[i * d + k]) * rows[i * d + k];
    norms[size_t(i)] = float(s);
  }
  // Candidate search on ‖a‖² + ‖b‖² − 2a·b from float32 Gram blocks (BLAS); the few best
  // candidates per row are then measured exactly, so rounding in the Gram trick cannot pick the
  // wrong neighbours unless more than kCandidates points tie within float precision.
  // Only the blocks on and above the diagonal are multiplied: block (I, J) serves the rows of I
  // (its rows) and those of J (its columns), so each product G_ij is computed once and both rows
  // read the same value. Taking the pairs in row-major order offers every row its candidates in
  // ascending index, as a scan of a full Gram row would.
  // Blocks of 512: a diagonal block is multiplied whole though half of it is needed, so the
  // narrower the blocks the less is wasted (at n = 4,096: 1.2 of 11 GFLOP instead of 2.4 of 12),
  // and sgemm keeps its rate at 512 × 512.
  const int64_t block = std::min<int64_t>(n, 512);
  std::vector<float> gram(size_t(block * block));
  std::vector<Candidates> candidates(static_cast<size_t>(n));
  const float* norm = norms.data();
  const bool vector = hasAvx512f();
  for (int64_t bi = 0; bi < n; bi += block) {
    const int64_t ni = std::min(block, n - bi);
    for (int64_t bj = bi; bj < n; bj += block) {
      const int64_t nj = std::min(block, n - bj);
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(ni), int(nj), int(d), 1.0f,
                  rows + bi * d, int(d), rows + bj * d, int(d), 0.0f, gram.data(), int(nj));
      // Each row's candidates are written by one thread only. The rows of I read their own
      // rows of the block; the rows of J (only off the diagonal, where J ≠ I) its columns, in
      // chunks of kColumns so that every thread reads whole cache lines row after row.
#pragma omp parallel for schedule(static)
      for (int64_t r = 0; r < ni; ++r) {
        const int64_t i = bi + r;
        const float* dot = gram.data() + r * nj;
        Candidates& mine = candidates[size_t(i)];
        if (vector) {
          const float* columnNorms = norm + bj;
          for (int64_t c = 0;; ++c) {
            c = firstTaken(dot, columnNorms, norm[i], mine.best[kCandidates - 1].first, c, nj);
            if (c == nj) break;
            if (bj + c != i) mine.offer(norm[i] + norm[bj + c] - 2 * dot[c], bj + c);
          }
          continue;
        }
        for (int64_t c = 0; c < nj; ++c)
          if (bj + c != i) mine.offer(norm[i] + norm[bj + c] - 2 * dot[c], bj + c);
      }
      if (bi == bj) continue;
      constexpr int64_t kColumns = 64;
#pragma omp parallel for schedule(static)
      for (int64_t first = 0; first < nj; first += kColumns) {
        const int64_t last = std::min(nj, first + kColumns);
        alignas(64) float limits[kColumns];
        for (int64_t c = first; c < last; ++c)
          limits[c - first] = candidates[size_t(bj + c)].best[kCandidates - 1].first;
        for (int64_t r = 0; r < ni; ++r) {
          const float* dot = gram.data() + r * nj;
          const float rowNorm = norm[bi + r];
          if (vector) {
            offerToColumns(dot, norm + bj, rowNorm, bi + r, first, last, candidates.data() + bj,
                           limits);
            continue;
          }
          for (int64_t c = first; c < last; ++c)
            candidates[size_t(bj + c)].offer(norm[bj + c] + rowNorm - 2 * dot[c], bi + r);
        }
      }
    }
  }
  std::vector<double> rowRatios(static_cast<size_t>(n));
  std::vector<unsigned char> kept(static_cast<size_t>(n));
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    const auto ratio = nearestRatio(rows, candidates[size_t(i)], i, d);
    kept[size_t(i)] = ratio.has_value();
    rowRatios[size_t(i)] = ratio.value_or(0.0);
  }
  std::vector<double>& ratios = out.ratios;
  ratios.reserve(size_t(n));
  for (int64_t i = 0; i < n; ++i)
    if (kept[size_t(i)]) ratios.push_back(rowRatios[size_t(i)]);
  return out;
}

double twoNNDimension(std::vector<double> ratios, TwoNNEstimator estimator, double discard) {
  if (ratios.size() < 3)
    throw std::invalid_argument("TwoNN needs at least 3 points with distinct neighbours, got " +
                                std::to_string(ratios.size()));
  if (estimator == TwoNNEstimator::MaximumLikelihood) {
    double sum = 0;
    for (double mu : ratios) sum += std::log(mu);
    return sum > 0 ? double(ratios.size()) / sum : std::numeric_limits<double>::infinity();
  }
  if (!(discard >= 0 && discard < 1)) throw std::invalid_argument("discard must be in [0, 1)");
  std::sort(ratios.begin(), ratios.end());
  const size_t n = ratios.size();
  const auto kept = size_t(std::floor(double(n) * (1.0 - discard)));
  // F_emp(μ_(i)) = i/N, i = 1..N; the kept points never include i = N, where log(1 − F) = −∞.
  double xy = 0, xx = 0;
  for (size_t i = 0; i < std::min(kept, n - 1); ++i) {
    const double x = std::log(ratios[i]);
    const double y = -std::log(1.0 - double(i + 1) / double(n));
    xy += x * y;
    xx += x * x;
  }
  if (xx <= 0)
    throw std::invalid_argument("every kept ratio r2/r1 is 1: the dimension is undefined");
  return xy / xx;
}

}  // namespace strata_plugins
