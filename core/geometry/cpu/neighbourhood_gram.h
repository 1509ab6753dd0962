#pragma once
// The k×k Gram matrix of one neighbourhood's rows about a shift s: G_rc = (y_r − s)·(y_c − s),
// read straight from the rows wherever they lie. m_curv centres it afterwards in double
// (local_curvature.cpp); shifting first by a row of the neighbourhood keeps the entries at the
// neighbourhood's own scale, so that centring loses nothing to cancellation.

#include <cstdint>
#include <span>
#include <vector>

namespace strata::geometry::cpu {

enum class GramKernel {
  Best,      // Avx512 where the CPU and OS have AVX-512F, else Portable
  Avx512,    // 4×4 blocks of 16-lane FMA accumulators, the shift applied as the rows load
  Portable,  // the shifted rows copied, then cblas_ssyrk (whatever the BLAS runs here)
};

/** Per-thread scratch of shiftedGram. */
struct GramScratch {
  std::vector<const float*> rows;
  std::vector<float> shifted, gram;
};

/**
 * G (k×k, row-major, the lower triangle r ≥ c written; the upper one is scratch) of the k rows
 * `rows` (each d floats) about `shift` (d floats), in float32 with float32 accumulation.
 * Throws std::invalid_argument for Avx512 where the machine lacks it.
 */
void shiftedGram(std::span<const float* const> rows, const float* shift, int64_t d, float* gram,
                 GramScratch& scratch, GramKernel kernel = GramKernel::Best);

}  // namespace strata::geometry::cpu
