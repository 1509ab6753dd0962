#include "geometry/cpu/symmetric_product.h"

#include <immintrin.h>

#include <algorithm>

namespace strata::geometry::cpu {

namespace {

constexpr int64_t kColumns = 4;  // columns per pass over the rows below them
constexpr int64_t kLanes = 8;    // doubles in a register

[[gnu::target("avx512f")]] inline __m512d widened(const float* p) {
  // The zero-masked form: GCC 12's _mm512_cvtps_pd warns on its own undefined pass-through.
  return _mm512_maskz_cvtps_pd(__mmask8(0xFF), _mm256_loadu_ps(p));
}

/** The sum of v's lanes, in lane order. */
[[gnu::target("avx512f")]] inline double laneSum(__m512d v) {
  alignas(64) double lanes[kLanes];
  _mm512_store_pd(lanes, v);
  double sum = 0;
  for (const double lane : lanes) sum += lane;
  return sum;
}

/** y += the contributions of columns [begin, end) of S (begin a multiple of kColumns): their
 *  elements below the diagonal to the rows below, and their dot products with x to themselves. */
[[gnu::target("avx512f")]] void addColumns(const float* lower, int64_t d, const double* x,
                                           double* y, int64_t begin, int64_t end) {
  int64_t j = begin;
  for (; j + kColumns <= end; j += kColumns) {
    // Named pointers, not an array: stores into y would otherwise reload an array each step.
    const float *c0 = lower + j * d, *c1 = c0 + d, *c2 = c1 + d, *c3 = c2 + d;
    const float* column[kColumns] = {c0, c1, c2, c3};
    double dot[kColumns] = {};
    // The 4×4 diagonal block: S(j + b, j + a) for b ≥ a, mirrored above the diagonal.
    for (int64_t a = 0; a < kColumns; ++a) {
      dot[a] += double(column[a][j + a]) * x[j + a];
      for (int64_t b = a + 1; b < kColumns; ++b) {
        const double s = column[a][j + b];
        dot[a] += s * x[j + b];
        y[j + b] += s * x[j + a];
      }
    }
    // The rows below the block: y_i += Σ_a S(i, j+a) x_{j+a}, and dot_a += Σ_i S(i, j+a) x_i.
    const __m512d x0 = _mm512_set1_pd(x[j]), x1 = _mm512_set1_pd(x[j + 1]);
    const __m512d x2 = _mm512_set1_pd(x[j + 2]), x3 = _mm512_set1_pd(x[j + 3]);
    __m512d sum0 = _mm512_setzero_pd(), sum1 = sum0, sum2 = sum0, sum3 = sum0;
    int64_t i = j + kColumns;
    for (; i + kLanes <= d; i += kLanes) {
      const __m512d s0 = widened(c0 + i), s1 = widened(c1 + i);
      const __m512d s2 = widened(c2 + i), s3 = widened(c3 + i);
      const __m512d xi = _mm512_loadu_pd(x + i);
      __m512d yi = _mm512_loadu_pd(y + i);
      yi = _mm512_fmadd_pd(s0, x0, yi);
      yi = _mm512_fmadd_pd(s1, x1, yi);
      yi = _mm512_fmadd_pd(s2, x2, yi);
      yi = _mm512_fmadd_pd(s3, x3, yi);
      _mm512_storeu_pd(y + i, yi);
      sum0 = _mm512_fmadd_pd(s0, xi, sum0);
      sum1 = _mm512_fmadd_pd(s1, xi, sum1);
      sum2 = _mm512_fmadd_pd(s2, xi, sum2);
      sum3 = _mm512_fmadd_pd(s3, xi, sum3);
    }
    dot[0] += laneSum(sum0);
    dot[1] += laneSum(sum1);
    dot[2] += laneSum(sum2);
    dot[3] += laneSum(sum3);
    for (; i < d; ++i) {
      const double s0 = c0[i], s1 = c1[i], s2 = c2[i], s3 = c3[i];
      y[i] += s0 * x[j] + s1 * x[j + 1] + s2 * x[j + 2] + s3 * x[j + 3];
      dot[0] += s0 * x[i];
      dot[1] += s1 * x[i];
      dot[2] += s2 * x[i];
      dot[3] += s3 * x[i];
    }
    for (int64_t a = 0; a < kColumns; ++a) y[j + a] += dot[a];
  }
  // The last (end − begin) mod 4 columns, one at a time.
  for (; j < end; ++j) {
    const float* column = lower + j * d;
    double dot = double(column[j]) * x[j];
    for (int64_t i = j + 1; i < d; ++i) {
      dot += double(column[i]) * x[i];
      y[i] += double(column[i]) * x[j];
    }
    y[j] += dot;
  }
}

}  // namespace

void symmetricProductOfFloatLower(const float* lower, int64_t d, const double* x, double* y) {
  std::fill_n(y, d, 0.0);
  addColumns(lower, d, x, y, 0, d);
}

}  // namespace strata::geometry::cpu
