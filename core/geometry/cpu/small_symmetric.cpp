#include "geometry/cpu/small_symmetric.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

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

double LargestEigenvalue::operator()(double* A, int64_t n) {
  if (n < 1) throw std::invalid_argument("the largest eigenvalue of an empty matrix");
  m_diagonal.resize(size_t(n));
  m_offDiagonal.resize(size_t(n));
  m_householder.resize(size_t(n));
  m_product.resize(size_t(n));
  double* a = m_diagonal.data();
  double* b = m_offDiagonal.data();
  double* v = m_householder.data();
  double* q = m_product.data();
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
  if (n >= 2) {
    a[n - 2] = A[(n - 2) * n + n - 2];
    b[n - 2] = A[(n - 2) * n + n - 1];
  }
  a[n - 1] = A[(n - 1) * n + n - 1];
  for (int64_t i = 0; i < n; ++i)
    if (!std::isfinite(a[i]) || (i + 1 < n && !std::isfinite(b[i])))
      return std::numeric_limits<double>::quiet_NaN();
  if (n == 1) return a[0];

  // Gershgorin bounds the spectrum; λ_max is at least the largest diagonal entry.
  double lower = -std::numeric_limits<double>::infinity();
  double upper = lower, maxOff = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double radius = (i > 0 ? std::abs(b[i - 1]) : 0.0) + (i + 1 < n ? std::abs(b[i]) : 0.0);
    lower = std::max(lower, a[i]);
    upper = std::max(upper, a[i] + radius);
    if (i + 1 < n) maxOff = std::max(maxOff, b[i] * b[i]);
  }
  if (maxOff == 0) return lower;  // diagonal
  const double pivmin = std::numeric_limits<double>::min() * std::max(1.0, maxOff);
  constexpr double kEpsilon = std::numeric_limits<double>::epsilon();
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

}  // namespace strata::geometry::cpu
