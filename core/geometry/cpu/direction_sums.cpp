#include "geometry/cpu/direction_sums.h"

namespace strata::geometry::cpu {

namespace {

// Compiled for AVX-512 and AVX2 as well (target_clones picks one when the program loads; the
// build targets baseline x86-64). What could differ between clones is the order of the sums,
// which the eight lanes fix. (The square of a float32 value is exact in double, so even a fused
// multiply-add would round as the baseline does; the file is built with -ffp-contract=off all
// the same, core/CMakeLists.txt, so that a later kernel here cannot differ by clone.)
#define STRATA_DIRECTION_KERNEL [[gnu::target_clones("avx512f", "avx2", "default")]]

constexpr int kLanes = 8;

/** The eight partial sums and the tail, in one fixed order. */
double combine(const double (&lane)[kLanes], double tail) {
  return ((lane[0] + lane[4]) + (lane[1] + lane[5])) + ((lane[2] + lane[6]) + (lane[3] + lane[7])) +
         tail;
}

}  // namespace

STRATA_DIRECTION_KERNEL double formDirection(const float* a, const float* b, const double* scale,
                                             float* u, int64_t d) {
  for (int64_t j = 0; j < d; ++j)
    u[j] = static_cast<float>(scale[j] * (double(a[j]) - double(b[j])));
  return squaredNorm(u, d);
}

STRATA_DIRECTION_KERNEL double squaredNorm(const float* x, int64_t d) {
  double lane[kLanes] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t j = 0;
  for (; j + kLanes <= d; j += kLanes)
    for (int l = 0; l < kLanes; ++l) {
      const double v = x[j + l];
      lane[l] += v * v;
    }
  double tail = 0;
  for (; j < d; ++j) tail += double(x[j]) * double(x[j]);
  return combine(lane, tail);
}

#undef STRATA_DIRECTION_KERNEL

}  // namespace strata::geometry::cpu
