#pragma once
// The leading eigenvalues of a symmetric d×d matrix by Lanczos with full reorthogonalisation,
// for a backend that can multiply by the matrix but should not decompose all of it: the CUDA
// backend keeps Σ and the Krylov basis in device memory (a dense FP64 eigendecomposition of a
// 4,096 × 4,096 Σ costs it a fixed ~0.1 s, while the proxies need only λ_max and the head of the
// spectrum). The driver here is host code and owns the maths (the tridiagonal T, restarts,
// convergence); the space does the d-length work wherever it keeps its vectors. The CPU backend
// keeps its own path (Spectra, covariance.cpp); geometry_lanczos_test checks this driver against
// it and against a dense solver.
//
// Convergence: after k steps, a Ritz value θ of T_k with unit eigenvector y is within
// |β_k·y_{k−1}| of an eigenvalue of the matrix; the run stops when that bound is at most
// tolerance · θ_max for each of the `count` largest Ritz values, or when the basis spans the
// whole space (then T is similar to the matrix and its eigenvalues are exact).

#include <cstdint>
#include <span>
#include <vector>

namespace strata::geometry {

/**
 * A symmetric matrix A and a Krylov basis q_0, q_1, … of unit vectors, with one working vector r
 * (the residual). Implementations keep them where their products are cheap; every method works
 * on vectors of dimension() entries. Not thread-safe.
 */
class KrylovSpace {
 public:
  virtual ~KrylovSpace() = default;
  /** d, the matrix's order. */
  virtual int64_t dimension() const = 0;
  /** The most basis vectors the space can hold (≤ d). */
  virtual int64_t capacity() const = 0;
  /** r := v (host values, d of them). */
  virtual void setResidual(std::span<const double> v) = 0;
  /** r := A·q_j. */
  virtual void multiply(int64_t j) = 0;
  /**
   * Two passes of classical Gram–Schmidt of r against q_0 … q_{count−1} (r −= Q Qᵀ r, twice).
   * When `recordDiagonal`, the coefficients of both passes on q_{count−1} are summed and kept
   * as α_{count−1}, the diagonal of T (read back by diagonal()).
   */
  virtual void orthogonalise(int64_t count, bool recordDiagonal) = 0;
  /** ‖r‖. */
  virtual double residualNorm() = 0;
  /** q_j := r · scale. */
  virtual void appendResidual(int64_t j, double scale) = 0;
  /** α_0 … α_{count−1} as recorded by orthogonalise. */
  virtual std::vector<double> diagonal(int64_t count) = 0;
};

struct LanczosSpectrum {
  std::vector<double> values;  // the `count` largest eigenvalues, descending
  int64_t steps = 0;           // basis vectors used
  int64_t restarts = 0;        // fresh start vectors after an invariant subspace was found
  bool converged = false;      // false: the space's capacity ran out first
};

struct LanczosOptions {
  double tolerance = 1e-10;  // on the residual bound, relative to θ_max
  int64_t checkEvery = 16;   // steps between convergence checks (each decomposes T on the host)
  uint64_t seed = 0x5EEDC0DEULL;  // of the start vector: the same matrix gives the same values
};

/**
 * The `count` largest eigenvalues of the space's matrix (count ≤ d). `scale` is a bound on the
 * matrix's size that the caller knows (tr Σ for a covariance): a residual below 1e-11·scale
 * counts as an invariant subspace, and the run restarts from a new vector orthogonal to the basis.
 */
LanczosSpectrum lanczosLeadingEigenvalues(KrylovSpace& space, int64_t count, double scale,
                                          const LanczosOptions& options = {});

/** A basis capacity that suits `count` eigenvalues of an order-d matrix. */
int64_t lanczosCapacity(int64_t d, int64_t count);

}  // namespace strata::geometry
