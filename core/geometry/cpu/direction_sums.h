#pragma once
// The per-direction loops of m_mono (covariance.cpp, meanRayleighQuotient): forming each
// difference direction u and its ‖u‖², and ‖L⁻¹u‖² after the solve. A bootstrap runs them for
// 1,024 directions in each of a layer's 31 evaluations; as serial double sums they waited on
// one addition after another (~4 cycles an element).

#include <cstdint>

namespace strata::geometry::cpu {

/**
 * u_j = float(s_j·(a_j − b_j)), formed in double and rounded once; returns ‖u‖² of the rounded
 * u in double (summed as squaredNorm does).
 */
double formDirection(const float* a, const float* b, const double* scale, float* u, int64_t d);

/**
 * Σ x_j² in double, in eight interleaved partial sums (element j into sum j mod 8, in order)
 * added in a fixed order at the end: the same bits on every machine, whichever vector width
 * runs it.
 */
double squaredNorm(const float* x, int64_t d);

}  // namespace strata::geometry::cpu
