#include "geometry/cpu/small_symmetric.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "geometry/cpu/simd.h"

namespace strata::geometry::cpu {

namespace {

/** How many eigenvalues of the tridiagonal (a, b) lie below x (the LDLᵀ pivots' signs). */
int64_t countBelow(const double* a, const double* b, int64_t n, double x, double pivmin) {
  int64_t count = 0;
  double pivot = a[0] - x;
  for (int64_t i = 0;; ++i) {
    if (std::abs(pivot) < pivmin) pivot = -pivmin;
    if (pivot < 0) ++count;
    if (i + 1 == n) return count;
    pivot = a[i + 1] - x - b[i] * b[i] / pivot;
  }
}

}  // namespace

namespace {

/**
 * Householder reduction of the leading n − 2 columns of A (column-major, overwritten): the
 * diagonal into a, the off-diagonal into b, v and q scratch of n. Compiled for AVX-512 and AVX2
 * as well (the loader picks one), and vectorised where the loops run along a column: the file is
 * built with -ffp-contract=off and -fvect-cost-model=dynamic (core/CMakeLists.txt), so each
 * clone rounds as the scalar code does (the sums over a column, xx and vᵀBv, stay in order).
 */
[[gnu::target_clones("avx512f", "avx2", "default")]] void householderSteps(
    double* __restrict A, int64_t n, double* __restrict a, double* __restrict b,
    double* __restrict v, double* __restrict q) {
  // Householder: step k zeroes column k below its subdiagonal, H = I − 2vvᵀ with ‖v‖ = 1, and
  // updates the trailing block B := HBH = B − v qᵀ − q vᵀ with q = 2Bv − 2(vᵀBv)v.
  for (int64_t k = 0; k + 2 < n; ++k) {
    const int64_t m = n - k - 1;
    const double* x = A + k * n + k + 1;
    double xx = 0;
    for (int64_t i = 0; i < m; ++i) xx += x[i] * x[i];
    a[k] = A[k * n + k];
    const double xNorm = std::sqrt(xx);
    const double tail = xx - x[0] * x[0];
    if (tail == 0) {  // already tridiagonal in this column
      b[k] = x[0];
      continue;
    }
    const double beta = x[0] > 0 ? -xNorm : xNorm;
    for (int64_t i = 0; i < m; ++i) v[i] = x[i];
    v[0] -= beta;
    const double scale = 1.0 / std::sqrt(tail + v[0] * v[0]);
    for (int64_t i = 0; i < m; ++i) v[i] *= scale;
    b[k] = beta;
    double* B = A + (k + 1) * n + (k + 1);  // column-major, leading dimension n
    std::fill_n(q, m, 0.0);
    for (int64_t j = 0; j < m; ++j) {
      const double vj = v[j];
      const double* column = B + j * n;
      for (int64_t i = 0; i < m; ++i) q[i] += column[i] * vj;
    }
    double vBv = 0;
    for (int64_t i = 0; i < m; ++i) vBv += v[i] * q[i];
    for (int64_t i = 0; i < m; ++i) q[i] = 2 * (q[i] - vBv * v[i]);
    for (int64_t j = 0; j < m; ++j) {
      const double vj = v[j], qj = q[j];
      double* column = B + j * n;
      for (int64_t i = 0; i < m; ++i) column[i] -= v[i] * qj + q[i] * vj;
    }
  }
}

}  // namespace

bool LargestEigenvalue::tridiagonalise(double* A, int64_t n) {
  if (n < 1) throw std::invalid_argument("the largest eigenvalue of an empty matrix");
  m_diagonal.resize(size_t(n));
  m_offDiagonal.resize(size_t(n));
  m_householder.resize(size_t(n));
  m_product.resize(size_t(n));
  double* a = m_diagonal.data();
  double* b = m_offDiagonal.data();
  householderSteps(A, n, a, b, m_householder.data(), m_product.data());
  if (n >= 2) {
    a[n - 2] = A[(n - 2) * n + n - 2];
    b[n - 2] = A[(n - 2) * n + n - 1];
  }
  a[n - 1] = A[(n - 1) * n + n - 1];
  for (int64_t i = 0; i < n; ++i)
    if (!std::isfinite(a[i]) || (i + 1 < n && !std::isfinite(b[i]))) return false;
  return true;
}

double LargestEigenvalue::operator()(double* A, int64_t n) {
  if (!tridiagonalise(A, n)) return std::numeric_limits<double>::quiet_NaN();
  return largestOfTridiagonal(m_diagonal.data(), m_offDiagonal.data(), n);
}

namespace {

/** Where the bisection for λ_max of the tridiagonal (a, b) starts, or its answer when it needs
 *  none (order 1, or diagonal). */
struct Bisection {
  double lower = 0, upper = 0, pivmin = 0;
  bool done = false;
  double answer = 0;
};

Bisection startBisection(const double* a, const double* b, int64_t n) {
  Bisection s;
  if (n == 1) {
    s.done = true;
    s.answer = a[0];
    return s;
  }
  // Gershgorin bounds the spectrum; λ_max is at least the largest diagonal entry.
  double lower = -std::numeric_limits<double>::infinity();
  double upper = lower, maxOff = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double radius = (i > 0 ? std::abs(b[i - 1]) : 0.0) + (i + 1 < n ? std::abs(b[i]) : 0.0);
    lower = std::max(lower, a[i]);
    upper = std::max(upper, a[i] + radius);
    if (i + 1 < n) maxOff = std::max(maxOff, b[i] * b[i]);
  }
  if (maxOff == 0) {  // diagonal
    s.done = true;
    s.answer = lower;
    return s;
  }
  s.lower = lower;
  s.upper = upper;
  s.pivmin = std::numeric_limits<double>::min() * std::max(1.0, maxOff);
  return s;
}

constexpr double kEpsilon = std::numeric_limits<double>::epsilon();

/** |v| lane by lane (the sign bits cleared). */
__attribute__((target("avx512f"))) inline __m512d magnitude(__m512d v) {
  return _mm512_castsi512_pd(
      _mm512_and_si512(_mm512_castpd_si512(v), _mm512_set1_epi64(0x7fffffffffffffffLL)));
}

/**
 * Eight bisections side by side, lane l for (a_l, b_l): exactly the steps of
 * largestOfTridiagonal (the same comparisons and roundings, elementwise), each lane frozen once
 * its own loop would have ended. `aT` and `bbT` hold a[i] and b[i]² of lane l at i·8 + l.
 * The point is the division in each Sturm step: one lane's steps wait on each other, eight
 * lanes' do not.
 */
__attribute__((target("avx512f"))) void bisectEight(const double* aT, const double* bbT, int64_t n,
                                                    Bisection* lanes, double* out) {
  __m512d lower = _mm512_setzero_pd(), upper = lower, pivmin = lower;
  __mmask8 active = 0;
  for (int l = 0; l < 8; ++l) {
    lower[l] = lanes[l].done ? lanes[l].answer : lanes[l].lower;
    upper[l] = lanes[l].done ? lanes[l].answer : lanes[l].upper;
    pivmin[l] = lanes[l].done ? 1.0 : lanes[l].pivmin;
    if (!lanes[l].done) active = __mmask8(active | (1u << l));
  }
  const __m512d half = _mm512_set1_pd(0.5), twoEpsilon = _mm512_set1_pd(2 * kEpsilon);
  const __m512d zero = _mm512_setzero_pd(), one = _mm512_set1_pd(1.0);
  const __m512d order = _mm512_set1_pd(double(n));
  while (active) {
    const __m512d width = _mm512_sub_pd(upper, lower);
    const __m512d tolerance = _mm512_add_pd(
        _mm512_mul_pd(twoEpsilon, _mm512_maskz_max_pd(0xFF, magnitude(lower), magnitude(upper))),
        pivmin);
    active = _mm512_mask_cmp_pd_mask(active, width, tolerance, _CMP_GT_OQ);
    const __m512d middle = _mm512_add_pd(lower, _mm512_mul_pd(half, width));
    active = _mm512_mask_cmp_pd_mask(active, middle, lower, _CMP_GT_OQ);
    active = _mm512_mask_cmp_pd_mask(active, middle, upper, _CMP_LT_OQ);
    if (!active) break;
    // Sturm count below `middle` in every lane (countBelow's recurrence).
    __m512d pivot = _mm512_sub_pd(_mm512_loadu_pd(aT), middle);
    __m512d count = zero;
    for (int64_t i = 0;; ++i) {
      const __mmask8 tiny = _mm512_cmp_pd_mask(magnitude(pivot), pivmin, _CMP_LT_OQ);
      pivot = _mm512_mask_sub_pd(pivot, tiny, zero, pivmin);
      count = _mm512_mask_add_pd(count, _mm512_cmp_pd_mask(pivot, zero, _CMP_LT_OQ), count, one);
      if (i + 1 == n) break;
      pivot = _mm512_sub_pd(_mm512_sub_pd(_mm512_loadu_pd(aT + (i + 1) * 8), middle),
                            _mm512_div_pd(_mm512_loadu_pd(bbT + i * 8), pivot));
    }
    const __mmask8 all = _mm512_cmp_pd_mask(count, order, _CMP_EQ_OQ);
    upper = _mm512_mask_mov_pd(upper, __mmask8(active & all), middle);
    lower = _mm512_mask_mov_pd(lower, __mmask8(active & ~all), middle);
  }
  const __m512d result = _mm512_add_pd(lower, _mm512_mul_pd(half, _mm512_sub_pd(upper, lower)));
  for (int l = 0; l < 8; ++l) out[l] = lanes[l].done ? lanes[l].answer : result[l];
}

}  // namespace

double largestOfTridiagonal(const double* a, const double* b, int64_t n) {
  const Bisection start = startBisection(a, b, n);
  if (start.done) return start.answer;
  double lower = start.lower, upper = start.upper;
  const double pivmin = start.pivmin;
  // Invariant: fewer than n eigenvalues below `lower`, all n below `upper` (or at it).
  while (upper - lower > 2 * kEpsilon * std::max(std::abs(lower), std::abs(upper)) + pivmin) {
    const double middle = lower + 0.5 * (upper - lower);
    if (middle <= lower || middle >= upper) break;
    if (countBelow(a, b, n, middle, pivmin) == n)
      upper = middle;
    else
      lower = middle;
  }
  return lower + 0.5 * (upper - lower);
}

void LargestEigenvalue::many(std::span<double* const> matrices, int64_t n, std::span<double> out,
                             bool vector) {
  if (matrices.size() != out.size())
    throw std::invalid_argument("the largest eigenvalues: " + std::to_string(matrices.size()) +
                                " matrices for " + std::to_string(out.size()) + " results");
  const bool eight = vector && hasAvx512f() && n > 1;
  m_transposedA.assign(size_t(8 * n), 0.0);
  m_transposedBB.assign(size_t(8 * n), 0.0);
  Bisection lanes[8];
  size_t lane[8];  // which entry of `out` each lane answers
  int filled = 0;
  const auto flush = [&] {
    for (int l = filled; l < 8; ++l) lanes[l] = Bisection{.done = true, .answer = 0};
    double results[8];
    bisectEight(m_transposedA.data(), m_transposedBB.data(), n, lanes, results);
    for (int l = 0; l < filled; ++l) out[lane[l]] = results[l];
    filled = 0;
  };
  for (size_t k = 0; k < matrices.size(); ++k) {
    if (!tridiagonalise(matrices[k], n)) {
      out[k] = std::numeric_limits<double>::quiet_NaN();
      continue;
    }
    const double* a = m_diagonal.data();
    const double* b = m_offDiagonal.data();
    if (!eight) {
      out[k] = largestOfTridiagonal(a, b, n);
      continue;
    }
    const Bisection start = startBisection(a, b, n);
    if (start.done) {
      out[k] = start.answer;
      continue;
    }
    for (int64_t i = 0; i < n; ++i) {
      m_transposedA[size_t(i * 8 + filled)] = a[i];
      m_transposedBB[size_t(i * 8 + filled)] = i + 1 < n ? b[i] * b[i] : 0.0;
    }
    lanes[filled] = start;
    lane[filled] = k;
    if (++filled == 8) flush();
  }
  if (filled > 0) flush();
}

}  // namespace strata::geometry::cpu
