#include "geometry/cpu/covariance.h"

#include <cblas.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Spectra/SymEigsSolver.h>
#include <algorithm>
#include <stdexcept>
#include <string>

#include "common/error.h"

namespace strata::geometry::cpu {

Eigen::MatrixXd normalisedCovariance(const std::vector<float>& normalised, const RowNormalisation& norm) {
  const int64_t d = norm.dims;
  const int64_t count = static_cast<int64_t>(norm.rows.size());
  // Row-major lower triangle of Σ in float32.
  std::vector<float> lower(static_cast<size_t>(d * d), 0.0f);
  const float alpha = static_cast<float>(1.0 / (norm.weightSum - 1));
  if (norm.rootWeights.empty()) {
    cblas_ssyrk(CblasRowMajor, CblasLower, CblasTrans, int(d), int(count), alpha, normalised.data(),
                int(d), 0.0f, lower.data(), int(d));
  } else {
    const int64_t block = rowBlockLength(d, 8192);
    std::vector<float> scaled(static_cast<size_t>(std::min(block, count) * d));
    for (int64_t begin = 0; begin < count; begin += block) {
      const int64_t n = std::min(block, count - begin);
#pragma omp parallel for schedule(static)
      for (int64_t r = 0; r < n; ++r) {
        const float f = norm.rootWeights[begin + r];
        const float* x = normalised.data() + (begin + r) * d;
        float* y = scaled.data() + r * d;
        for (int64_t j = 0; j < d; ++j) y[j] = f * x[j];
      }
      cblas_ssyrk(CblasRowMajor, CblasLower, CblasTrans, int(d), int(n), alpha, scaled.data(), int(d),
                  1.0f, lower.data(), int(d));
    }
  }
  Eigen::MatrixXd S(d, d);
  for (int64_t i = 0; i < d; ++i)
    for (int64_t j = 0; j <= i; ++j) S(i, j) = S(j, i) = lower[i * d + j];
  return S;
}

namespace {

/** y = S x for Spectra, through the BLAS (the dominant cost of Lanczos for large d). */
class SymmetricProduct {
 public:
  using Scalar = double;
  explicit SymmetricProduct(const Eigen::MatrixXd& S) : m_S(S) {}
  Eigen::Index rows() const { return m_S.rows(); }
  Eigen::Index cols() const { return m_S.cols(); }
  void perform_op(const double* x, double* y) const {
    const int n = int(m_S.rows());
    cblas_dsymv(CblasColMajor, CblasLower, n, 1.0, m_S.data(), n, x, 1, 0.0, y, 1);
  }

 private:
  const Eigen::MatrixXd& m_S;
};

std::vector<double> denseLeading(const Eigen::MatrixXd& S, int64_t count) {
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(S, Eigen::EigenvaluesOnly);
  if (solver.info() != Eigen::Success) throw Error("the dense eigensolver failed on Σ");
  const Eigen::VectorXd& ascending = solver.eigenvalues();
  std::vector<double> out;
  for (int64_t i = 0; i < count; ++i) out.push_back(ascending(ascending.size() - 1 - i));
  return out;
}

}  // namespace

std::vector<double> leadingEigenvalues(const Eigen::MatrixXd& S, int64_t count) {
  const int64_t d = S.rows();
  const int64_t nev = std::min(count, d);
  const int64_t ncv = std::min<int64_t>(d, std::max<int64_t>(2 * nev + 1, 20));
  if (ncv >= d) return denseLeading(S, nev);
  SymmetricProduct op(S);
  Spectra::SymEigsSolver<SymmetricProduct> lanczos(op, nev, ncv);
  lanczos.init();  // Spectra's fixed-seed start vector: deterministic
  lanczos.compute(Spectra::SortRule::LargestAlge, 1000, 1e-10, Spectra::SortRule::LargestAlge);
  if (lanczos.info() != Spectra::CompInfo::Successful) return denseLeading(S, nev);
  const Eigen::VectorXd values = lanczos.eigenvalues();
  return std::vector<double>(values.data(), values.data() + values.size());
}

void choleskyInPlace(Eigen::MatrixXd& A) {
  const int64_t n = A.rows();
  const int lda = int(A.outerStride());
  constexpr int64_t kBlock = 256;
  for (int64_t j = 0; j < n; j += kBlock) {
    const int64_t jb = std::min(kBlock, n - j);
    // A11 = L11 L11ᵀ (its trailing updates from earlier panels were applied by dsyrk below).
    Eigen::LLT<Eigen::MatrixXd> diagonal(A.block(j, j, jb, jb));
    if (diagonal.info() != Eigen::Success)
      throw Error("Σ + εI is not numerically positive definite (Cholesky failed near column " +
                  std::to_string(j) + "); raise the ridge factor");
    A.block(j, j, jb, jb).triangularView<Eigen::Lower>() = diagonal.matrixL();
    const int64_t rest = n - j - jb;
    if (rest == 0) break;
    double* a11 = A.data() + j * lda + j;
    double* a21 = A.data() + j * lda + j + jb;
    double* a22 = A.data() + (j + jb) * lda + j + jb;
    // L21 = A21 L11⁻ᵀ, then A22 −= L21 L21ᵀ (lower triangle only).
    cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, int(rest), int(jb),
                1.0, a11, lda, a21, lda);
    cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, int(rest), int(jb), -1.0, a21, lda, 1.0,
                a22, lda);
  }
}

double meanRayleighQuotient(const Eigen::MatrixXd& choleskyLower, const HiddenStates& states,
                            const RowNormalisation& norm,
                            std::span<const std::pair<int64_t, int64_t>> pairs) {
  const int64_t d = norm.dims;
  // Column p of U is the p-th non-zero direction (column-major, so each u is contiguous).
  std::vector<double> U;
  U.reserve(pairs.size() * d);
  std::vector<double> squaredNorms;
  for (const auto& [a, b] : pairs) {
    const float* xa = states.data + a * d;
    const float* xb = states.data + b * d;
    double squared = 0;
    const size_t column = U.size();
    U.resize(column + d);
    for (int64_t j = 0; j < d; ++j) {
      const double u = norm.scale * (double(xa[j]) - double(xb[j]));
      U[column + j] = u;
      squared += u * u;
    }
    if (squared == 0) U.resize(column);  // a duplicate row: no direction
    else squaredNorms.push_back(squared);
  }
  const int64_t count = static_cast<int64_t>(squaredNorms.size());
  if (count == 0)
    throw std::invalid_argument("m_mono: every sampled pair joins two identical rows (no direction u ≠ 0)");
  // Z = L⁻¹U; uᵀ(LLᵀ)⁻¹u = ‖L⁻¹u‖².
  cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, int(d), int(count),
              1.0, choleskyLower.data(), int(choleskyLower.outerStride()), U.data(), int(d));
  double sum = 0;
  for (int64_t p = 0; p < count; ++p) {
    const double* z = U.data() + p * d;
    double zz = 0;
    for (int64_t j = 0; j < d; ++j) zz += z[j] * z[j];
    sum += zz / squaredNorms[p];
  }
  return sum / double(count);
}

}  // namespace strata::geometry::cpu
