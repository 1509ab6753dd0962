#include "linear_cka.h"

#include <cblas.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace strata_plugins {
namespace {

// Precision. The means and the centring are taken in double and the centred values rounded once
// to float32; the products (ssyrk) run in float32, at twice dsyrk's rate and half its memory;
// every sum of their squares is taken in double. Against the same CKA in double, on SmolLM2's 30
// pairs of consecutive layers (4,096 WikiText-2 tokens, residual-stream values up to ~1,900),
// every value moved by at most 8.9e-9 relative (docs/plugins.md).

/** n floats left uninitialised: every buffer here is written before it is read. */
std::unique_ptr<float[]> uninitialised(int64_t n) {
  return std::unique_ptr<float[]>(new float[size_t(n)]);
}

/**
 * Z = [X − x̄, Y − ȳ], n×(dx+dy) row-major: both layers column-centred, side by side, so that
 * one symmetric rank-k update (ssyrk) of Z or of its two halves gives every product. The means
 * first, in double from the float inputs, then Z in one pass (no zero-filled copy to overwrite).
 */
std::unique_ptr<float[]> centredSideBySide(const float* x, int64_t dx, const float* y, int64_t dy,
                                           int64_t n) {
  const int64_t w = dx + dy;
  std::vector<double> mean(size_t(w), 0.0);
  // In parallel over blocks of columns, each summed over the rows in order: the same bits for
  // any number of threads.
  constexpr int64_t kColumns = 64;
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t first = 0; first < w; first += kColumns) {
    const int64_t last = std::min(w, first + kColumns);
    double* m = mean.data();
    for (int64_t i = 0; i < n; ++i)
      for (int64_t k = first; k < last; ++k)
        m[k] += k < dx ? double(x[i * dx + k]) : double(y[i * dy + (k - dx)]);
  }
  for (auto& v : mean) v /= double(n);
  auto z = uninitialised(n * w);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    float* row = z.get() + i * w;
    for (int64_t k = 0; k < dx; ++k) row[k] = float(x[i * dx + k] - mean[size_t(k)]);
    for (int64_t k = 0; k < dy; ++k) row[dx + k] = float(y[i * dy + k] - mean[size_t(dx + k)]);
  }
  return z;
}

/**
 * ⟨P, Q⟩_F, ‖P‖²_F and ‖Q‖²_F of two symmetric m×m matrices of which only the upper triangle
 * (row-major, leading dimension ld) is filled, as ssyrk leaves them: the diagonal once, every
 * entry above it twice. One pass over both, one partial sum per row (shorter chains of rounding
 * than one running sum over m²/2 products).
 */
std::array<double, 3> symmetricInners(const float* p, const float* q, int64_t m, int64_t ld) {
  std::array<double, 3> sum{0, 0, 0};
  for (int64_t i = 0; i < m; ++i) {
    const float* pi = p + i * ld;
    const float* qi = q + i * ld;
    double pq = 0, pp = 0, qq = 0;
    for (int64_t j = i + 1; j < m; ++j) {
      const double a = pi[j], b = qi[j];
      pq += a * b;
      pp += a * a;
      qq += b * b;
    }
    const double a = pi[i], b = qi[i];
    sum[0] += a * b + 2 * pq;
    sum[1] += a * a + 2 * pp;
    sum[2] += b * b + 2 * qq;
  }
  return sum;
}

struct Alignments {
  double xy, xx, yy;  // ‖YᵀX‖²_F, ‖XᵀX‖²_F, ‖YᵀY‖²_F
};

/**
 * Sample space: K = XXᵀ and L = YYᵀ (n×n, one ssyrk each), then ‖YᵀX‖² = ⟨K, L⟩_F,
 * ‖XᵀX‖² = ‖K‖², ‖YᵀY‖² = ‖L‖². Holds two n×n matrices besides Z.
 */
Alignments alignSamples(const float* z, int64_t dx, int64_t dy, int64_t n) {
  const int64_t w = dx + dy;
  const auto k = uninitialised(n * n), l = uninitialised(n * n);
  cblas_ssyrk(CblasRowMajor, CblasUpper, CblasNoTrans, int(n), int(dx), 1.0f, z, int(w), 0.0f,
              k.get(), int(n));
  cblas_ssyrk(CblasRowMajor, CblasUpper, CblasNoTrans, int(n), int(dy), 1.0f, z + dx, int(w), 0.0f,
              l.get(), int(n));
  const auto [kl, kk, ll] = symmetricInners(k.get(), l.get(), n, n);
  return {kl, kk, ll};
}

/**
 * Feature space: one ssyrk C = ZᵀZ = [XᵀX XᵀY; YᵀX YᵀY] ((dx+dy)², upper triangle), whose
 * diagonal blocks give ‖XᵀX‖² and ‖YᵀY‖² and whose upper-right block XᵀY gives the cross term.
 * Holds one (dx+dy)² matrix besides Z, no larger than Z when this form is chosen (n ≥ dx+dy).
 */
Alignments alignFeatures(const float* z, int64_t dx, int64_t dy, int64_t n) {
  const int64_t w = dx + dy;
  const auto c = uninitialised(w * w);
  cblas_ssyrk(CblasRowMajor, CblasUpper, CblasTrans, int(w), int(n), 1.0f, z, int(w), 0.0f, c.get(),
              int(w));
  double xy = 0;
  for (int64_t i = 0; i < dx; ++i) {
    double row = 0;
    for (int64_t j = dx; j < w; ++j) row += double(c[size_t(i * w + j)]) * c[size_t(i * w + j)];
    xy += row;
  }
  const float* yBlock = c.get() + dx * w + dx;
  return {xy, symmetricInners(c.get(), c.get(), dx, w)[1],
          symmetricInners(yBlock, yBlock, dy, w)[1]};
}

}  // namespace

double linearCka(const float* x, int64_t n, int64_t dx, const float* y, int64_t dy) {
  if (n < 2) throw std::invalid_argument("CKA needs at least 2 rows, got " + std::to_string(n));
  const auto z = centredSideBySide(x, dx, y, dy, n);
  // The form with fewer multiply-adds. A syrk of an m×k matrix costs m(m+1)k/2 of them (half
  // a gemm's m²k, as only one triangle is formed). Sample space: the n×n Grams of X and of Y,
  // n(n+1)(dx+dy)/2. Feature space: the (dx+dy)² Gram of Z = [X Y], (dx+dy)(dx+dy+1)n/2 —
  // the same as XᵀY by gemm plus XᵀX and YᵀY by syrk. So the sample space wins when
  // n < dx + dy. At n = d = 4096 it costs half the feature space and a third of three d×d
  // gemms (XᵀY, XᵀX, YᵀY); at n = 8192, d = 576 the feature space costs 1/7 of the sample
  // space and two thirds of those three gemms. Memory: Z (n(dx+dy) floats) plus 2n² in the
  // sample space or (dx+dy)² ≤ n(dx+dy) in the feature space.
  const Alignments a =
      n < dx + dy ? alignSamples(z.get(), dx, dy, n) : alignFeatures(z.get(), dx, dy, n);
  if (!(a.xx > 0) || !(a.yy > 0))
    throw std::invalid_argument("a layer's rows are all equal: CKA is undefined");
  return a.xy / std::sqrt(a.xx * a.yy);
}

}  // namespace strata_plugins
