#include "geometry/lanczos_spectrum.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

namespace strata::geometry {
namespace {

/** T_k: α on the diagonal, β below and above it (β[i] couples q_i and q_{i+1}). */
struct Tridiagonal {
  std::vector<double> alpha, beta;
  int64_t order() const { return int64_t(alpha.size()); }
};

/**
 * y solving (T − θI) y = b by Gaussian elimination with partial pivoting (LAPACK's dgttrf and
 * dgtts2), a zero pivot replaced by `tiny`: θ is an eigenvalue of T here, so the system is
 * singular up to rounding and the solution points along its eigenvector (inverse iteration).
 */
std::vector<double> solveShifted(const Tridiagonal& t, double theta, std::vector<double> b,
                                 double tiny) {
  const int64_t n = t.order();
  std::vector<double> d(static_cast<size_t>(n)), dl(t.beta.begin(), t.beta.begin() + (n - 1)),
      du(dl.begin(), dl.end()), du2(size_t(std::max<int64_t>(n - 2, 0)), 0.0);
  std::vector<bool> swapped(size_t(std::max<int64_t>(n - 1, 0)), false);
  for (int64_t i = 0; i < n; ++i) d[size_t(i)] = t.alpha[size_t(i)] - theta;
  for (int64_t i = 0; i + 1 < n; ++i) {
    const size_t s = size_t(i);
    if (std::abs(d[s]) >= std::abs(dl[s])) {
      if (d[s] == 0) d[s] = tiny;
      const double fact = dl[s] / d[s];
      dl[s] = fact;
      d[s + 1] -= fact * du[s];
    } else {
      const double fact = d[s] / dl[s];
      d[s] = dl[s];
      dl[s] = fact;
      const double temp = du[s];
      du[s] = d[s + 1];
      d[s + 1] = temp - fact * d[s + 1];
      if (i + 2 < n) {
        du2[s] = du[s + 1];
        du[s + 1] = -fact * du[s + 1];
      }
      swapped[s] = true;
    }
  }
  for (double& pivot : d)
    if (std::abs(pivot) < tiny) pivot = std::copysign(tiny, pivot == 0 ? 1.0 : pivot);
  for (int64_t i = 0; i + 1 < n; ++i) {
    const size_t s = size_t(i);
    if (!swapped[s]) {
      b[s + 1] -= dl[s] * b[s];
    } else {
      const double temp = b[s] - dl[s] * b[s + 1];
      b[s] = b[s + 1];
      b[s + 1] = temp;
    }
  }
  for (int64_t i = n - 1; i >= 0; --i) {
    const size_t s = size_t(i);
    double v = b[s];
    if (i + 1 < n) v -= du[s] * b[s + 1];
    if (i + 2 < n) v -= du2[s] * b[s + 2];
    b[s] = v / d[s];
  }
  return b;
}

/** |last entry| of T's unit eigenvector for the eigenvalue θ (two steps of inverse iteration). */
double lastEigenvectorEntry(const Tridiagonal& t, double theta, double normT) {
  const int64_t n = t.order();
  const double tiny = std::max(normT, std::numeric_limits<double>::min()) * 1e-15;
  // A fixed start that no eigenvector of an unreduced T is orthogonal to in practice.
  std::vector<double> y(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) y[size_t(i)] = 1.0 + 0.5 * std::sin(double(i) * 1.618);
  for (int pass = 0; pass < 2; ++pass) {
    y = solveShifted(t, theta, std::move(y), tiny);
    double norm = 0;
    for (double v : y) norm += v * v;
    norm = std::sqrt(norm);
    if (!(norm > 0) || !std::isfinite(norm)) return 1.0;  // no estimate: count as unconverged
    for (double& v : y) v /= norm;
  }
  return std::abs(y.back());
}

/** Eigenvalues of T, descending. */
std::vector<double> tridiagonalEigenvalues(const Tridiagonal& t) {
  const int64_t n = t.order();
  Eigen::VectorXd diagonal = Eigen::Map<const Eigen::VectorXd>(t.alpha.data(), n);
  Eigen::VectorXd sub =
      n > 1 ? Eigen::VectorXd(Eigen::Map<const Eigen::VectorXd>(t.beta.data(), n - 1))
            : Eigen::VectorXd(0);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver;
  solver.computeFromTridiagonal(diagonal, sub, Eigen::EigenvaluesOnly);
  if (solver.info() != Eigen::Success)
    throw std::runtime_error("Lanczos: the tridiagonal eigenvalue iteration did not converge");
  const Eigen::VectorXd& ascending = solver.eigenvalues();
  std::vector<double> descending(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) descending[size_t(i)] = ascending(n - 1 - i);
  return descending;
}

}  // namespace

int64_t lanczosCapacity(int64_t d, int64_t count) {
  return std::min(d, std::max<int64_t>(8 * count, 4 * count + 256));
}

LanczosSpectrum lanczosLeadingEigenvalues(KrylovSpace& space, int64_t count, double scale,
                                          const LanczosOptions& options) {
  const int64_t d = space.dimension();
  const int64_t capacity = std::min(space.capacity(), d);
  if (count < 1 || count > d)
    throw std::invalid_argument("Lanczos: asked for " + std::to_string(count) +
                                " eigenvalues of an order-" + std::to_string(d) + " matrix");
  if (capacity < count)
    throw std::invalid_argument("Lanczos: a basis of " + std::to_string(capacity) +
                                " vectors cannot give " + std::to_string(count) + " eigenvalues");
  if (!(scale > 0) || !std::isfinite(scale))
    throw std::invalid_argument("Lanczos: the matrix's scale must be finite and positive");

  std::mt19937_64 rng(options.seed);
  std::normal_distribution<double> normal;
  std::vector<double> start(static_cast<size_t>(d));
  // A new unit vector orthogonal to q_0 … q_{k−1}, appended as q_k.
  const auto appendFreshVector = [&](int64_t k) {
    for (double& v : start) v = normal(rng);
    space.setResidual(start);
    if (k > 0) space.orthogonalise(k, false);
    const double norm = space.residualNorm();
    if (!(norm > 0) || !std::isfinite(norm))
      throw std::runtime_error("Lanczos: no start vector outside the basis (" + std::to_string(k) +
                               " of " + std::to_string(d) + ")");
    space.appendResidual(k, 1.0 / norm);
  };

  LanczosSpectrum result;
  Tridiagonal t;
  const double breakdown = 1e-11 * scale;
  appendFreshVector(0);
  for (int64_t k = 1;; ++k) {
    // Step k: r = A q_{k−1}, orthogonalised against q_0 … q_{k−1}; β_k = ‖r‖ couples q_k.
    space.multiply(k - 1);
    space.orthogonalise(k, true);
    const double beta = space.residualNorm();
    if (!std::isfinite(beta))
      throw std::runtime_error("Lanczos: the matrix has values that are not finite");
    const bool exhausted = k == d;
    // The head rarely converges before 2·count steps (128–208 for 64 values of power-law
    // spectra at d = 4,096): earlier checks would only cost host time.
    const bool check =
        (k >= 2 * count && k % options.checkEvery == 0) || k == capacity || exhausted;
    if (check) {
      t.alpha = space.diagonal(k);
      const std::vector<double> ritz = tridiagonalEigenvalues(t);
      double normT = 0;
      for (double v : ritz) normT = std::max(normT, std::abs(v));
      bool converged = true;
      if (!exhausted)
        for (int64_t i = 0; i < count && converged; ++i)
          converged = beta * lastEigenvectorEntry(t, ritz[size_t(i)], normT) <=
                      options.tolerance * std::max(ritz.front(), 0.0);
      if (converged || k == capacity) {
        result.values.assign(ritz.begin(), ritz.begin() + count);
        result.steps = k;
        result.converged = converged;
        return result;
      }
    }
    if (beta <= breakdown) {
      // r ≈ 0: q_0 … q_{k−1} span an invariant subspace. T splits here (β = 0), and a new start
      // vector orthogonal to them explores the rest (repeated eigenvalues, a rank below d).
      t.beta.push_back(0.0);
      appendFreshVector(k);
      ++result.restarts;
    } else {
      t.beta.push_back(beta);
      space.appendResidual(k, 1.0 / beta);
    }
  }
}

}  // namespace strata::geometry
