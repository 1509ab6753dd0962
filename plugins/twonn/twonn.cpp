#include "twonn.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_set>
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

/** One copy of each distinct row (bitwise), in order of first occurrence. */
std::vector<float> distinctRows(const float* rows, int64_t n, int64_t d) {
  std::unordered_set<std::string_view> seen;
  seen.reserve(size_t(n));
  std::vector<float> out;
  out.reserve(size_t(n * d));  // the usual case: no copies at all
  const size_t bytes = size_t(d) * sizeof(float);
  for (int64_t i = 0; i < n; ++i) {
    const std::string_view row(reinterpret_cast<const char*>(rows + i * d), bytes);
    if (seen.insert(row).second) out.insert(out.end(), rows + i * d, rows + (i + 1) * d);
  }
  return out;
}

/**
 * r2/r1 of row i of the n×d `rows`, from its Gram row g (g[j] = float dot product of rows i and
 * j) and the rows' squared norms: the kCandidates smallest approximate squared distances, then
 * those candidates measured exactly in double. None when fewer than two neighbours exist or
 * r1 = 0 (rows equal in value, e.g. ±0). Reads only; safe to call for many rows at once.
 */
std::optional<double> nearestRatio(const float* rows, const float* norms, const float* g, int64_t i,
                                   int64_t n, int64_t d) {
  std::pair<float, int64_t> best[kCandidates];
  for (auto& b : best) b = {std::numeric_limits<float>::infinity(), -1};
  for (int64_t j = 0; j < n; ++j) {
    if (j == i) continue;
    const float approx = norms[i] + norms[j] - 2 * g[j];
    if (approx >= best[kCandidates - 1].first) continue;
    int slot = kCandidates - 1;
    while (slot > 0 && best[slot - 1].first > approx) best[slot] = best[slot - 1], --slot;
    best[slot] = {approx, j};
  }
  double exact[kCandidates];
  int found = 0;
  for (const auto& b : best)
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
  const std::vector<float> distinct = distinctRows(input, total, d);
  const int64_t n = int64_t(distinct.size()) / std::max<int64_t>(d, 1);
  TwoNNRatios out;
  out.duplicates = total - n;
  if (n < 3)
    throw std::invalid_argument("TwoNN needs at least 3 distinct points, got " + std::to_string(n) +
                                " (" + std::to_string(out.duplicates) + " of " +
                                std::to_string(total) + " rows are copies of another row)");
  const float* rows = distinct.data();
  std::vector<float> norms(static_cast<size_t>(n), 0.0f);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    double s = 0;
    for (int64_t k = 0; k < d; ++k) s += double(rows[i * d + k]) * rows[i * d + k];
    norms[size_t(i)] = float(s);
  }
  // Candidate search on ‖a‖² + ‖b‖² − 2a·b from a float32 Gram block (BLAS); the few best
  // candidates per row are then measured exactly, so rounding in the Gram trick cannot pick the
  // wrong neighbours unless more than kCandidates points tie within float precision.
  // The full Gram, not its upper half with each product serving both rows: a BLAS need not
  // round G_ij and G_ji alike (OpenBLAS's Haswell and Zen sgemm kernels do not), and the half
  // would then settle near ties among the candidates differently from row i's own products.
  const int64_t block = std::max<int64_t>(1, std::min<int64_t>(n, (int64_t(32) << 20) / (4 * n)));
  std::vector<float> gram(size_t(block * n));
  std::vector<double> blockRatios(static_cast<size_t>(block));
  std::vector<unsigned char> blockKept(static_cast<size_t>(block));
  std::vector<double>& ratios = out.ratios;
  ratios.reserve(size_t(n));
  for (int64_t begin = 0; begin < n; begin += block) {
    const int64_t rowsHere = std::min(block, n - begin);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(rowsHere), int(n), int(d), 1.0f,
                rows + begin * d, int(d), rows, int(d), 0.0f, gram.data(), int(n));
    // Rows are independent: each thread scans its own rows of the block and writes only their
    // slots; the ratios are appended in row order afterwards, as a serial scan would.
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < rowsHere; ++r) {
      const auto ratio = nearestRatio(rows, norms.data(), gram.data() + r * n, begin + r, n, d);
      blockKept[size_t(r)] = ratio.has_value();
      blockRatios[size_t(r)] = ratio.value_or(0.0);
    }
    for (int64_t r = 0; r < rowsHere; ++r)
      if (blockKept[size_t(r)]) ratios.push_back(blockRatios[size_t(r)]);
  }
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
