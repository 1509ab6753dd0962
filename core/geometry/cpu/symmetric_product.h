#pragma once
// Σx for Lanczos, read from Σ's float32 triangle. Σ of the normalised rows is computed in float32
// (ssyrk) and only then widened to double, so every element of the double Σ is a float32 value:
// the float32 triangle holds the same matrix in half the bytes. Lanczos reads the whole matrix
// once per product (21 times for λ_max, ~200 for 64 eigenvalues), from memory once d passes a
// few hundred, so the bytes are its time: cblas_dsymv's double triangle took 57 µs at d = 576
// and 3.1 ms at 4,096 on one core, this 21 µs and 1.7 ms.

#include <cstdint>

namespace strata::geometry::cpu {

/**
 * y = S x for the symmetric d×d S whose lower triangle (diagonal included) is `lower`,
 * column-major with leading dimension d — the same memory as a row-major upper triangle; the
 * strict upper part is never read. Each element is widened to double and every sum is in
 * double, so y is dsymv's product on the widened matrix up to the order of the sums. Four
 * columns at a time: each pass over the rows below them updates y once for all four and forms
 * their four dot products with x. One thread: it serves the lanes (geometry/cpu/proxy_lanes.h),
 * each on one core. AVX-512F only: call it after hasAvx512f() (geometry/cpu/simd.h);
 * elsewhere cblas_dsymv on the double Σ does the same product.
 */
void symmetricProductOfFloatLower(const float* lower, int64_t d, const double* x, double* y);

}  // namespace strata::geometry::cpu
