#include "geometry/cpu/covariance.h"

#include <Spectra/SymEigsSolver.h>
#include <cblas.h>
#include <omp.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/error.h"
#include "geometry/cpu/direction_sums.h"
#include "geometry/cpu/simd.h"
#include "geometry/cpu/symmetric_product.h"

namespace strata::geometry::cpu {

const float* normalisedCovariance(const float* normalised, const RowNormalisation& norm,
                                  bool rootWeighted, Workspace& workspace, double* sigma) {
  const int64_t d = norm.dims;
  const int64_t count = static_cast<int64_t>(norm.rows.size());
  // Σ in float32, as the row-major upper triangle: the same memory as the column-major lower
  // one that the double Σ keeps, so widening it below reads and writes contiguously.
  float* upper = workspace.lower.take<float>(d * d);
  const float alpha = static_cast<float>(1.0 / (norm.weightSum - 1));
  if (norm.rootWeights.empty() || rootWeighted) {
    cblas_ssyrk(CblasRowMajor, CblasUpper, CblasTrans, int(d), int(count), alpha, normalised,
                int(d), 0.0f, upper, int(d));
  } else {
    const int64_t block = rowBlockLength(d, 8192);
    float* scaled = workspace.scaled.take<float>(std::min(block, count) * d);
    for (int64_t begin = 0; begin < count; begin += block) {
      const int64_t n = std::min(block, count - begin);
#pragma omp parallel for schedule(static)
      for (int64_t r = 0; r < n; ++r) {
        const float f = norm.rootWeights[begin + r];
        const float* x = normalised + (begin + r) * d;
        float* y = scaled + r * d;
        for (int64_t j = 0; j < d; ++j) y[j] = f * x[j];
      }
      cblas_ssyrk(CblasRowMajor, CblasUpper, CblasTrans, int(d), int(n), alpha, scaled, int(d),
                  begin == 0 ? 0.0f : 1.0f, upper, int(d));
    }
  }
  // Row-major upper (j ≥ i at i·d + j) is column-major lower: widen element by element.
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < d; ++i)
    for (int64_t j = i; j < d; ++j) sigma[i * d + j] = upper[i * d + j];
  return upper;
}

namespace {

/** y = S x for Spectra, the dominant cost of Lanczos for large d: from S's float32 triangle
 *  (half the bytes) when it is given, AVX-512 is there and the product runs on one thread (in a
 *  lane, or with one thread in all), else by cblas_dsymv (threaded as the BLAS is: a parallel
 *  region per product costs more than it saves with OpenMP's threads sleeping between them). */
class SymmetricProduct {
 public:
  using Scalar = double;
  SymmetricProduct(const double* S, const float* floatLower, int64_t n)
      : m_S(S),
        m_floatLower(floatLower != nullptr && hasAvx512f() &&
                             (omp_in_parallel() != 0 || omp_get_max_threads() == 1)
                         ? floatLower
                         : nullptr),
        m_n(n) {}
  Eigen::Index rows() const { return m_n; }
  Eigen::Index cols() const { return m_n; }
  void perform_op(const double* x, double* y) const {
    if (m_floatLower != nullptr)
      symmetricProductOfFloatLower(m_floatLower, m_n, x, y);
    else
      cblas_dsymv(CblasColMajor, CblasLower, int(m_n), 1.0, m_S, int(m_n), x, 1, 0.0, y, 1);
  }

 private:
  const double* m_S;
  const float* m_floatLower;
  int64_t m_n;
};

std::vector<double> denseLeading(const double* data, int64_t d, int64_t count) {
  const Eigen::Map<const Eigen::MatrixXd> S(data, d, d);
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(S, Eigen::EigenvaluesOnly);
  if (solver.info() != Eigen::Success) throw Error("the dense eigensolver failed on Σ");
  const Eigen::VectorXd& ascending = solver.eigenvalues();
  std::vector<double> out;
  for (int64_t i = 0; i < count; ++i) out.push_back(ascending(ascending.size() - 1 - i));
  return out;
}

/**
 * U ← L⁻¹U for the lower factor L (column-major, double) and `count` columns of U, in float32.
 * The factor is rounded to float32 (strsm-class arithmetic runs 1.7–2× faster than double here,
 * and a bootstrap makes 30 of these solves a layer; the quotients move by ~cond(L)·2⁻²⁴
 * relative, measured on real layers in docs/geometry.md, "Precision of the m_mono solve").
 * The solve goes in 64-row panels, all by sgemm: each diagonal block's inverse (formed in double
 * by dtrsm against I, then rounded) times the panel, then the panel subtracted from the rows
 * below. OpenBLAS's strsm with 1,024 right-hand sides ran at ~50 GFLOP/s at d = 576 where its
 * sgemm runs ~150; on one thread 6.7 → 3.2 ms at d = 576, 13.8 → 9.9 ms at 1,024.
 */
void solveLowerInPanels(const double* choleskyLower, int64_t d, float* U, int64_t count,
                        HugeBuffer& factorScratch) {
  constexpr int64_t kPanel = 64;
  // L's lower triangle in float32, each kPanel-wide diagonal block replaced by its inverse
  // (lower triangular; the block's strictly upper part zero), then room for one panel of U.
  float* L = factorScratch.take<float>(d * d + kPanel * count);
  float* panel = L + d * d;
  for (int64_t j = 0; j < d; ++j)
    for (int64_t i = j; i < d; ++i) L[j * d + i] = static_cast<float>(choleskyLower[j * d + i]);
  std::vector<double> inverse(size_t(kPanel * kPanel));
  for (int64_t j = 0; j < d; j += kPanel) {
    const int64_t jb = std::min(kPanel, d - j);
    std::fill(inverse.begin(), inverse.end(), 0.0);
    for (int64_t i = 0; i < jb; ++i) inverse[size_t(i * jb + i)] = 1.0;
    cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, int(jb), int(jb),
                1.0, choleskyLower + j * d + j, int(d), inverse.data(), int(jb));
    for (int64_t c = 0; c < jb; ++c)
      for (int64_t r = 0; r < jb; ++r)
        L[(j + c) * d + j + r] = static_cast<float>(inverse[size_t(c * jb + r)]);
  }
  for (int64_t j = 0; j < d; j += kPanel) {
    const int64_t jb = std::min(kPanel, d - j), rest = d - j - jb;
    for (int64_t c = 0; c < count; ++c) std::copy_n(U + c * d + j, jb, panel + c * jb);
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, int(jb), int(count), int(jb), 1.0f,
                L + j * d + j, int(d), panel, int(jb), 0.0f, U + j, int(d));
    if (rest > 0)
      cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, int(rest), int(count), int(jb), -1.0f,
                  L + j * d + j + jb, int(d), U + j, int(d), 1.0f, U + j + jb, int(d));
  }
}

}  // namespace

std::vector<double> leadingEigenvalues(const double* S, int64_t d, int64_t count,
                                       const float* floatLower) {
  const int64_t nev = std::min(count, d);
  const int64_t ncv = std::min<int64_t>(d, std::max<int64_t>(2 * nev + 1, 20));
  if (ncv >= d) return denseLeading(S, d, nev);
  SymmetricProduct op(S, floatLower, d);
  Spectra::SymEigsSolver<SymmetricProduct> lanczos(op, nev, ncv);
  lanczos.init();  // Spectra's fixed-seed start vector: deterministic
  lanczos.compute(Spectra::SortRule::LargestAlge, 1000, 1e-10, Spectra::SortRule::LargestAlge);
  if (lanczos.info() != Spectra::CompInfo::Successful) return denseLeading(S, d, nev);
  const Eigen::VectorXd values = lanczos.eigenvalues();
  return std::vector<double>(values.data(), values.data() + values.size());
}

void choleskyInPlace(double* data, int64_t n) {
  Eigen::Map<Eigen::MatrixXd> A(data, n, n);
  const int lda = int(n);
  // Narrow diagonal blocks: Eigen's LLT runs the baseline build's SSE2, the BLAS's dtrsm and
  // dsyrk its AVX-512 kernels, so the less of the d³/3 the blocks hold the better. One thread,
  // d = 576 / 896: 3.0 / 8.0 ms at 256, 1.6 / 5.1 ms at 64; at 4,096 64 is as fast as 256.
  constexpr int64_t kBlock = 64;
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

double meanRayleighQuotient(const double* choleskyLower, const HiddenStates& states,
                            const RowNormalisation& norm,
                            std::span<const std::pair<int64_t, int64_t>> pairs, HugeBuffer& scratch,
                            HugeBuffer& factorScratch) {
  const int64_t d = norm.dims;
  const int64_t total = static_cast<int64_t>(pairs.size());
  // Column p of U is the p-th direction (column-major, so each u is contiguous), formed in double
  // and rounded once; ‖u‖² is taken of the rounded u, the one solved.
  float* U = scratch.take<float>(std::max<int64_t>(total, 1) * d);
  std::vector<double> squared(total);
#pragma omp parallel for schedule(static)
  for (int64_t p = 0; p < total; ++p) {
    const float* xa = states.data + pairs[p].first * d;
    const float* xb = states.data + pairs[p].second * d;
    squared[p] = formDirection(xa, xb, norm.scale.data(), U + p * d, d);
  }
  // Drop the zero directions (duplicate rows), keeping the order of the others.
  std::vector<double> squaredNorms;
  for (int64_t p = 0; p < total; ++p) {
    if (squared[p] == 0) continue;
    const int64_t column = static_cast<int64_t>(squaredNorms.size());
    if (column != p) std::copy_n(U + p * d, d, U + column * d);
    squaredNorms.push_back(squared[p]);
  }
  const int64_t count = static_cast<int64_t>(squaredNorms.size());
  if (count == 0)
    throw std::invalid_argument(
        "m_mono: every sampled pair joins two identical rows (no direction u ≠ 0)");
  // Z = L⁻¹U; uᵀ(LLᵀ)⁻¹u = ‖L⁻¹u‖², summed in double.
  solveLowerInPanels(choleskyLower, d, U, count, factorScratch);
  double sum = 0;
  for (int64_t p = 0; p < count; ++p) sum += squaredNorm(U + p * d, d) / squaredNorms[p];
  return sum / double(count);
}

}  // namespace strata::geometry::cpu
