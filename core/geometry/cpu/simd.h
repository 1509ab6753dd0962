#pragma once
// Which vector instructions the geometry's hand-written kernels may use on this machine. The
// build targets baseline x86-64 (no -march); kernels compiled for more carry a target attribute
// and are called only after asking here. (Plain loops use target_clones instead, where the
// loader picks the clone: row_normalisation.cpp.)

namespace strata::geometry::cpu {

/** AVX-512F, with the operating system saving its registers (GCC's check covers both). */
inline bool hasAvx512f() {
  static const bool available = __builtin_cpu_supports("avx512f");
  return available;
}

}  // namespace strata::geometry::cpu
