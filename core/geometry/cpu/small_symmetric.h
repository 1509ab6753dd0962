#pragma once
// λ_max of a small dense symmetric matrix (a neighbourhood's k×k Gram, k = 32 by default), the
// inner step of m_curv run once per anchor: a general eigensolver spends most of its time on
// the eigenvalues nobody reads.

#include <cstdint>
#include <span>
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

  /**
   * out[k] = λ_max of matrices[k] (each n×n, column-major, overwritten), bit for bit what
   * operator() gives. With `vector` and AVX-512, eight bisections run side by side in the lanes
   * of one register: each Sturm step divides by the last one's pivot, so one bisection waits on
   * its divisions; eight fill the divider.
   */
  void many(std::span<double* const> matrices, int64_t n, std::span<double> out,
            bool vector = true);

 private:
  /** Reduces A to (m_diagonal, m_offDiagonal); false when it is not finite. */
  bool tridiagonalise(double* A, int64_t n);

  std::vector<double> m_diagonal, m_offDiagonal, m_householder, m_product;
  std::vector<double> m_transposedA, m_transposedBB;  // eight tridiagonals, lane by lane
};

/** λ_max of the symmetric tridiagonal matrix with diagonal a (n) and off-diagonal b (n − 1), by
 *  bisection on Sturm counts to full double precision. */
double largestOfTridiagonal(const double* a, const double* b, int64_t n);

}  // namespace strata::geometry::cpu
