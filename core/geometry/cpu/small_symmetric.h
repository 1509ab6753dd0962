#pragma once
// λ_max of a small dense symmetric matrix (a neighbourhood's k×k Gram, k = 32 by default), the
// inner step of m_curv run once per anchor: a general eigensolver spends most of its time on
// the eigenvalues nobody reads.

#include <cstdint>
#include <vector>

namespace strata::geometry::cpu {

/**
 * The largest eigenvalue of symmetric n×n matrices, one after another, reusing its scratch (one
 * per thread). Householder reduction to tridiagonal form (LAPACK's dsytd2, unblocked: n is
 * small), then bisection on Sturm counts (dstebz) for the top eigenvalue only, to full double
 * precision: the result agrees with a complete eigensolver to a few units in the last place.
 */
class LargestEigenvalue {
 public:
  /** λ_max of the n×n matrix at `columnMajor` (both triangles filled); the matrix is overwritten.
   */
  double operator()(double* columnMajor, int64_t n);

 private:
  std::vector<double> m_diagonal, m_offDiagonal, m_householder, m_product;
};

}  // namespace strata::geometry::cpu
