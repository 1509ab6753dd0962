// The Lanczos driver that gives the CUDA backend its spectrum head (geometry/lanczos_spectrum.h),
// run here on a host Krylov space with the same contract as the device one: its eigenvalues
// against a dense solver (Eigen) and against the CPU backend's own path (Spectra), on sample
// covariances with power-law spectra, a rank below d, repeated eigenvalues and tiny orders.

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "geometry/cpu/covariance.h"
#include "geometry/lanczos_spectrum.h"

namespace strata::geometry {
namespace {

/** The KrylovSpace contract on host memory (Eigen), as the CUDA backend's runs it on cuBLAS. */
class HostKrylovSpace final : public KrylovSpace {
 public:
  HostKrylovSpace(Eigen::MatrixXd matrix, int64_t capacity)
      : m_a(std::move(matrix)), m_q(m_a.rows(), capacity), m_alpha(capacity, 0.0) {}
  int64_t dimension() const override { return m_a.rows(); }
  int64_t capacity() const override { return m_q.cols(); }
  void setResidual(std::span<const double> v) override {
    m_r = Eigen::Map<const Eigen::VectorXd>(v.data(), Eigen::Index(v.size()));
  }
  void multiply(int64_t j) override { m_r = m_a.selfadjointView<Eigen::Lower>() * m_q.col(j); }
  void orthogonalise(int64_t count, bool recordDiagonal) override {
    double last = 0;
    for (int pass = 0; pass < 2; ++pass) {
      const Eigen::VectorXd h = m_q.leftCols(count).transpose() * m_r;
      m_r -= m_q.leftCols(count) * h;
      last += h(count - 1);
    }
    if (recordDiagonal) m_alpha[size_t(count - 1)] = last;
  }
  double residualNorm() override { return m_r.norm(); }
  void appendResidual(int64_t j, double scale) override { m_q.col(j) = m_r * scale; }
  std::vector<double> diagonal(int64_t count) override {
    return {m_alpha.begin(), m_alpha.begin() + count};
  }

 private:
  Eigen::MatrixXd m_a, m_q;
  Eigen::VectorXd m_r;
  std::vector<double> m_alpha;
};

Eigen::MatrixXd randomRotation(int64_t d, std::mt19937& rng) {
  std::normal_distribution<double> normal;
  Eigen::MatrixXd g(d, d);
  for (Eigen::Index i = 0; i < g.size(); ++i) g.data()[i] = normal(rng);
  return Eigen::HouseholderQR<Eigen::MatrixXd>(g).householderQ();
}

/** The covariance of `rows` rotated samples whose column j has variance (j + 1)^−a. */
Eigen::MatrixXd powerLawCovariance(int64_t rows, int64_t d, double a, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd x(rows, d);
  for (int64_t j = 0; j < d; ++j) {
    const double sd = std::pow(double(j + 1), -a / 2);
    for (int64_t i = 0; i < rows; ++i) x(i, j) = sd * normal(rng);
  }
  x = x * randomRotation(d, rng);
  const Eigen::MatrixXd centred = x.rowwise() - x.colwise().mean();
  return centred.transpose() * centred / double(rows - 1);
}

std::vector<double> denseLeading(const Eigen::MatrixXd& a, int64_t count) {
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(a, Eigen::EigenvaluesOnly);
  std::vector<double> out;
  for (int64_t i = 0; i < count; ++i) out.push_back(solver.eigenvalues()(a.rows() - 1 - i));
  return out;
}

LanczosSpectrum runLanczos(const Eigen::MatrixXd& a, int64_t count, int64_t capacity = 0) {
  const int64_t d = a.rows();
  HostKrylovSpace space(a, capacity > 0 ? capacity : lanczosCapacity(d, count));
  return lanczosLeadingEigenvalues(space, count, a.trace());
}

void expectSpectraNear(const std::vector<double>& got, const std::vector<double>& want,
                       double relative, double absolute) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got[i], want[i], relative * std::abs(want[i]) + absolute) << "eigenvalue " << i;
}

class LanczosPowerLaw : public testing::TestWithParam<double> {};

TEST_P(LanczosPowerLaw, LeadingEigenvaluesEqualADenseSolverAndTheCpuBackend) {
  const double a = GetParam();
  const int64_t d = 600, count = 64;
  const Eigen::MatrixXd sigma = powerLawCovariance(3 * d, d, a, uint32_t(100 * a + 7));
  const LanczosSpectrum lanczos = runLanczos(sigma, count);
  ASSERT_TRUE(lanczos.converged) << "steps " << lanczos.steps;
  EXPECT_LT(lanczos.steps, d) << "converged only when the basis spanned everything";
  const std::vector<double> dense = denseLeading(sigma, count);
  expectSpectraNear(lanczos.values, dense, 1e-9, 1e-12 * dense.front());
  // The CPU backend's own path (Spectra on the lower triangle, column-major).
  const std::vector<double> spectra = cpu::leadingEigenvalues(sigma.data(), d, count);
  expectSpectraNear(lanczos.values, spectra, 1e-9, 1e-12 * dense.front());
}

INSTANTIATE_TEST_SUITE_P(Exponents, LanczosPowerLaw, testing::Values(0.0, 0.5, 1.0, 2.0),
                         [](const testing::TestParamInfo<double>& info) {
                           return "a" + std::to_string(int(info.param * 10));
                         });

TEST(Lanczos, RankBelowTheOrderGivesItsZeroEigenvalues) {
  // 80 samples in 200 dimensions: rank 79, so the 100 largest include 21 zeros, which only a
  // restart after the invariant subspace of the first start vector can reach.
  const int64_t d = 200, count = 100;
  const Eigen::MatrixXd sigma = powerLawCovariance(80, d, 1.0, 11);
  const LanczosSpectrum lanczos = runLanczos(sigma, count);
  ASSERT_TRUE(lanczos.converged);
  EXPECT_GE(lanczos.restarts, 1);
  const std::vector<double> dense = denseLeading(sigma, count);
  expectSpectraNear(lanczos.values, dense, 1e-9, 1e-11 * dense.front());
  EXPECT_NEAR(lanczos.values.back(), 0.0, 1e-11 * dense.front());
}

TEST(Lanczos, RepeatedEigenvaluesAreCountedWithTheirMultiplicity) {
  std::mt19937 rng(5);
  const int64_t d = 40;
  Eigen::VectorXd values = Eigen::VectorXd::LinSpaced(d, 0.01, 0.5);
  values.head(5) << 9, 9, 9, 4, 4;
  const Eigen::MatrixXd q = randomRotation(d, rng);
  const Eigen::MatrixXd a = q * values.asDiagonal() * q.transpose();
  const LanczosSpectrum lanczos = runLanczos(a, 6);
  // A single start vector's Krylov space holds one vector per distinct eigenvalue; the copies
  // come from a restart or from rounding amplified by the steps, and must all be there.
  ASSERT_TRUE(lanczos.converged);
  expectSpectraNear(lanczos.values, {9, 9, 9, 4, 4, 0.5}, 1e-10, 1e-12);
}

TEST(Lanczos, SmallOrdersAndTheWholeSpectrumAreExact) {
  for (const int64_t d : {1, 2, 3, 10}) {
    const Eigen::MatrixXd sigma = powerLawCovariance(50, d, 0.7, uint32_t(d));
    const LanczosSpectrum lanczos = runLanczos(sigma, d);
    ASSERT_TRUE(lanczos.converged) << "d = " << d;
    expectSpectraNear(lanczos.values, denseLeading(sigma, d), 1e-10, 1e-14);
  }
}

TEST(Lanczos, ACapacityTooSmallReportsNoConvergence) {
  // The CUDA backend falls back to a dense eigendecomposition on this answer.
  const Eigen::MatrixXd sigma = powerLawCovariance(900, 300, 0.0, 3);
  const LanczosSpectrum lanczos = runLanczos(sigma, 64, 66);
  EXPECT_FALSE(lanczos.converged);
  EXPECT_EQ(lanczos.steps, 66);
}

TEST(Lanczos, TheSameMatrixGivesTheSameValues) {
  const Eigen::MatrixXd sigma = powerLawCovariance(400, 128, 1.0, 9);
  EXPECT_EQ(runLanczos(sigma, 16).values, runLanczos(sigma, 16).values);
}

TEST(Lanczos, RefusesImpossibleRequests) {
  const Eigen::MatrixXd sigma = powerLawCovariance(100, 20, 1.0, 1);
  HostKrylovSpace space(sigma, 20);
  EXPECT_THROW(lanczosLeadingEigenvalues(space, 0, sigma.trace()), std::invalid_argument);
  EXPECT_THROW(lanczosLeadingEigenvalues(space, 21, sigma.trace()), std::invalid_argument);
  EXPECT_THROW(lanczosLeadingEigenvalues(space, 5, 0.0), std::invalid_argument);
  HostKrylovSpace narrow(sigma, 4);
  EXPECT_THROW(lanczosLeadingEigenvalues(narrow, 5, sigma.trace()), std::invalid_argument);
}

}  // namespace
}  // namespace strata::geometry
