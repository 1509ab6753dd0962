#include "geometry/cpu/neighbourhood_gram.h"

#include <cblas.h>
#include <immintrin.h>

#include <algorithm>
#include <stdexcept>

#include "geometry/cpu/simd.h"

namespace strata::geometry::cpu {

namespace {

/**
 * G over rows padded to a multiple of 4 (the padding points at the shift: zero rows), tile by
 * tile of the lower triangle; `kp` is the padded order, the output's leading dimension.
 * Compiled for AVX-512F alone and called only after the CPU said it has it.
 */
__attribute__((target("avx512f"))) void gramAvx512(const float* const* rows, int64_t kp,
                                                   const float* shift, int64_t d, float* gram) {
  for (int64_t r0 = 0; r0 < kp; r0 += 4)
    for (int64_t c0 = 0; c0 <= r0; c0 += 4) {
      __m512 acc[16];
      for (__m512& a : acc) a = _mm512_setzero_ps();
      for (int64_t j = 0; j < d; j += 16) {
        // Masked loads: the last step reads only the d mod 16 columns that exist.
        const __mmask16 mask =
            d - j >= 16 ? __mmask16(0xFFFF) : static_cast<__mmask16>((1u << (d - j)) - 1u);
        const __m512 s = _mm512_maskz_loadu_ps(mask, shift + j);
        __m512 R[4], C[4];
        for (int p = 0; p < 4; ++p) {
          R[p] = _mm512_sub_ps(_mm512_maskz_loadu_ps(mask, rows[r0 + p] + j), s);
          C[p] = _mm512_sub_ps(_mm512_maskz_loadu_ps(mask, rows[c0 + p] + j), s);
        }
        for (int p = 0; p < 4; ++p)
          for (int q = 0; q < 4; ++q) acc[p * 4 + q] = _mm512_fmadd_ps(R[p], C[q], acc[p * 4 + q]);
      }
      // The 16 lanes summed in a fixed order (GCC 12's _mm512_reduce_add_ps trips
      // -Wmaybe-uninitialized).
      alignas(64) float lanes[16];
      for (int p = 0; p < 4; ++p)
        for (int q = 0; q < 4; ++q) {
          _mm512_store_ps(lanes, acc[p * 4 + q]);
          float sum = 0;
          for (float lane : lanes) sum += lane;
          gram[(r0 + p) * kp + c0 + q] = sum;
        }
    }
}

}  // namespace

void shiftedGram(std::span<const float* const> rows, const float* shift, int64_t d, float* gram,
                 GramScratch& scratch, GramKernel kernel) {
  const int64_t k = int64_t(rows.size());
  if (kernel == GramKernel::Best) kernel = hasAvx512f() ? GramKernel::Avx512 : GramKernel::Portable;
  if (kernel == GramKernel::Avx512) {
    if (!hasAvx512f())
      throw std::invalid_argument("the AVX-512 Gram kernel needs a CPU with AVX-512F");
    const int64_t kp = (k + 3) / 4 * 4;
    scratch.rows.assign(rows.begin(), rows.end());
    scratch.rows.resize(size_t(kp), shift);  // padding: y − s = 0
    scratch.gram.resize(size_t(kp * kp));
    gramAvx512(scratch.rows.data(), kp, shift, d, scratch.gram.data());
    for (int64_t r = 0; r < k; ++r) std::copy_n(scratch.gram.data() + r * kp, r + 1, gram + r * k);
    return;
  }
  scratch.shifted.resize(size_t(k * d));
  for (int64_t r = 0; r < k; ++r) {
    float* y = scratch.shifted.data() + r * d;
    for (int64_t j = 0; j < d; ++j) y[j] = rows[size_t(r)][j] - shift[j];
  }
  cblas_ssyrk(CblasRowMajor, CblasLower, CblasNoTrans, int(k), int(d), 1.0f, scratch.shifted.data(),
              int(d), 0.0f, gram, int(k));
}

}  // namespace strata::geometry::cpu
