// m_curv's inner step on the CPU: the neighbourhood Gram kernels (AVX-512 and the portable BLAS
// one) against a double-precision product, and the small-matrix λ_max against Eigen's complete
// eigensolver, on the shapes that break such code: orders and widths that are not multiples of
// the kernel's blocks, rank-deficient and zero matrices, repeated top eigenvalues, extreme scales.

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "geometry/cpu/local_curvature.h"
#include "geometry/cpu/neighbourhood_gram.h"
#include "geometry/cpu/simd.h"
#include "geometry/cpu/small_symmetric.h"

namespace strata::geometry::cpu {
namespace {

double eigenLargest(const Eigen::MatrixXd& a) {
  return Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(a, Eigen::EigenvaluesOnly)
      .eigenvalues()
      .maxCoeff();
}

double ours(Eigen::MatrixXd a) {
  LargestEigenvalue largest;
  return largest(a.data(), a.rows());
}

Eigen::MatrixXd randomSymmetric(int64_t n, std::mt19937& rng) {
  std::normal_distribution<double> normal;
  Eigen::MatrixXd g(n, n);
  for (Eigen::Index i = 0; i < g.size(); ++i) g.data()[i] = normal(rng);
  return (g + g.transpose()) / 2;
}

TEST(GeometryNeighbourhood, LargestEigenvalueMatchesACompleteSolver) {
  std::mt19937 rng(11);
  std::normal_distribution<double> normal;
  for (int64_t n : {1, 2, 3, 4, 7, 16, 31, 32, 33, 64, 100}) {
    // Indefinite, then positive semi-definite of rank about n/3 (a centred neighbourhood's Gram
    // has rank ≤ k − 1, and far less when its rows repeat).
    const Eigen::MatrixXd indefinite = randomSymmetric(n, rng);
    EXPECT_NEAR(ours(indefinite), eigenLargest(indefinite),
                1e-13 * indefinite.cwiseAbs().maxCoeff() * double(n))
        << "n = " << n;
    Eigen::MatrixXd y(n, std::max<int64_t>(n / 3, 1));
    for (Eigen::Index i = 0; i < y.size(); ++i) y.data()[i] = normal(rng);
    const Eigen::MatrixXd gram = y * y.transpose();
    EXPECT_NEAR(ours(gram) / eigenLargest(gram), 1.0, 1e-13) << "n = " << n;
  }
}

// Eight bisections side by side (LargestEigenvalue::many) take exactly the steps of one: the
// same bits as operator() for every matrix, in groups that do not fill the eight lanes, with
// lanes that need no bisection (order 1, diagonal, zero) or give NaN mixed in among the others.
TEST(GeometryNeighbourhood, LargestEigenvaluesSideBySideAreEachOneAlone) {
  std::mt19937 rng(13);
  std::normal_distribution<double> normal;
  for (const int64_t n : {1, 2, 3, 7, 32, 33}) {
    std::vector<Eigen::MatrixXd> matrices;
    for (int m = 0; m < 21; ++m) {
      Eigen::MatrixXd y(n, 1 + m % std::max<int64_t>(n, 1));
      for (Eigen::Index i = 0; i < y.size(); ++i)
        y.data()[i] = normal(rng) * std::pow(10.0, m % 7 - 3);
      matrices.push_back(m % 5 == 4 ? randomSymmetric(n, rng) : Eigen::MatrixXd(y * y.transpose()));
    }
    matrices[3] = Eigen::MatrixXd::Zero(n, n);
    matrices[6] = Eigen::VectorXd::LinSpaced(n, -1.0, 2.0).asDiagonal();
    matrices[9] = matrices[2];
    matrices[9](0, 0) = std::numeric_limits<double>::quiet_NaN();
    std::vector<double> alone;
    for (const Eigen::MatrixXd& a : matrices) alone.push_back(ours(a));
    for (const bool vector : {true, false}) {
      std::vector<Eigen::MatrixXd> work = matrices;
      std::vector<double*> pointers;
      for (Eigen::MatrixXd& a : work) pointers.push_back(a.data());
      std::vector<double> together(matrices.size());
      LargestEigenvalue largest;
      largest.many(pointers, n, together, vector);
      for (size_t m = 0; m < matrices.size(); ++m) {
        if (std::isnan(alone[m])) {
          EXPECT_TRUE(std::isnan(together[m])) << "n = " << n << ", matrix " << m;
        } else {
          EXPECT_EQ(together[m], alone[m])
              << "n = " << n << ", matrix " << m << ", vector " << vector;
        }
      }
    }
  }
}

TEST(GeometryNeighbourhood, LargestEigenvalueOfDegenerateMatrices) {
  EXPECT_EQ(ours(Eigen::MatrixXd::Zero(32, 32)), 0.0);
  EXPECT_EQ(ours(Eigen::MatrixXd::Identity(5, 5) * 3.0), 3.0);
  // A diagonal matrix whose largest entry is not the first.
  EXPECT_EQ(ours(Eigen::Vector4d(1, 7, -2, 5).asDiagonal()), 7.0);
  EXPECT_EQ(ours(Eigen::Vector4d(-1, -7, -2, -5).asDiagonal()), -1.0);
  // A top eigenvalue of multiplicity 3 (and everything else below it), in a rotated basis.
  std::mt19937 rng(5);
  const Eigen::MatrixXd q =
      Eigen::HouseholderQR<Eigen::MatrixXd>(randomSymmetric(32, rng)).householderQ();
  Eigen::VectorXd values = Eigen::VectorXd::LinSpaced(32, 0.0, 1.0);
  values.tail(3).setConstant(2.5);
  const Eigen::MatrixXd repeated = q * values.asDiagonal() * q.transpose();
  EXPECT_NEAR(ours(repeated), 2.5, 1e-13);
  // Extreme scales: the same matrix times 1e-30 and 1e+30.
  const Eigen::MatrixXd base = randomSymmetric(12, rng);
  const double want = eigenLargest(base);
  EXPECT_NEAR(ours(base * 1e-30) / (want * 1e-30), 1.0, 1e-12);
  EXPECT_NEAR(ours(base * 1e30) / (want * 1e30), 1.0, 1e-12);
  // Non-finite entries give NaN, not a number that looks like an answer.
  Eigen::MatrixXd broken = base;
  broken(3, 2) = broken(2, 3) = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(std::isnan(ours(broken)));
}

/** Rows of width d scattered through one buffer, as a neighbourhood's rows lie in the layer. */
struct Neighbourhood {
  std::vector<float> buffer;
  std::vector<const float*> rows;
};

Neighbourhood neighbourhood(int64_t k, int64_t d, float offset, float spread, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  Neighbourhood out;
  out.buffer.resize(size_t((2 * k + 1) * d));
  for (float& v : out.buffer) v = offset + spread * normal(rng);
  for (int64_t r = 0; r < k; ++r) out.rows.push_back(out.buffer.data() + (2 * r + 1) * d);
  return out;
}

/** G_rc = (y_r − s)·(y_c − s) in double, from the same float rows. */
double referenceGram(const Neighbourhood& n, const float* shift, int64_t d, int64_t r, int64_t c) {
  double sum = 0;
  for (int64_t j = 0; j < d; ++j)
    sum += (double(n.rows[size_t(r)][j]) - shift[j]) * (double(n.rows[size_t(c)][j]) - shift[j]);
  return sum;
}

TEST(GeometryNeighbourhood, GramKernelsMatchADoubleProduct) {
  std::vector<GramKernel> kernels = {GramKernel::Portable, GramKernel::Best};
  if (hasAvx512f()) kernels.push_back(GramKernel::Avx512);
  for (GramKernel kernel : kernels)
    for (int64_t k : {2, 3, 5, 32, 33})
      for (int64_t d : {1, 15, 16, 17, 100, 576}) {
        // Rows near 50 with a spread of 1: the shift by the first row keeps the entries at the
        // spread's scale, as m_curv needs.
        const Neighbourhood n = neighbourhood(k, d, 50.0f, 1.0f, uint32_t(7 * k + d));
        std::vector<float> gram(size_t(k * k), -1.0f);
        GramScratch scratch;
        shiftedGram(n.rows, n.rows[0], d, gram.data(), scratch, kernel);
        double worst = 0;
        for (int64_t r = 0; r < k; ++r)
          for (int64_t c = 0; c <= r; ++c) {
            const double want = referenceGram(n, n.rows[0], d, r, c);
            const double scale = std::sqrt(referenceGram(n, n.rows[0], d, r, r) *
                                           referenceGram(n, n.rows[0], d, c, c)) +
                                 1e-30;
            worst = std::max(worst, std::abs(double(gram[size_t(r * k + c)]) - want) / scale);
          }
        EXPECT_LT(worst, 1e-5) << "kernel " << int(kernel) << ", k = " << k << ", d = " << d;
      }
}

TEST(GeometryNeighbourhood, TheAvx512KernelIsRefusedWhereTheCpuLacksIt) {
  if (hasAvx512f()) GTEST_SKIP() << "this CPU has AVX-512F";
  const Neighbourhood n = neighbourhood(4, 16, 0.0f, 1.0f, 3);
  std::vector<float> gram(16);
  GramScratch scratch;
  EXPECT_THROW(shiftedGram(n.rows, n.rows[0], 16, gram.data(), scratch, GramKernel::Avx512),
               std::invalid_argument);
}

/** λ_max of the neighbours' covariance, in double from the float rows (the definition). */
double referenceLambdaMax(const std::vector<float>& layer, int64_t d,
                          const std::vector<int64_t>& rows) {
  const int64_t k = int64_t(rows.size());
  Eigen::MatrixXd y(k, d);
  for (int64_t r = 0; r < k; ++r)
    for (int64_t j = 0; j < d; ++j) y(r, j) = layer[size_t(rows[size_t(r)] * d + j)];
  const Eigen::MatrixXd centred = y.rowwise() - y.colwise().mean();
  return eigenLargest(centred * centred.transpose() / double(k - 1));
}

TEST(GeometryNeighbourhood, LambdaMaxOfEveryKernelMatchesTheDefinition) {
  // 40 rows of width 70 far from the origin (offset 30, so that centring by a poor method
  // would cancel), in neighbourhoods of 9 that overlap; one neighbourhood of a repeated row.
  const int64_t d = 70, rowsInLayer = 40, k = 9;
  std::mt19937 rng(21);
  std::normal_distribution<float> normal;
  std::vector<float> layer(size_t(rowsInLayer * d));
  for (float& v : layer) v = 30.0f + 0.5f * normal(rng);
  RowNormalisation norm;
  norm.dims = d;
  NeighbourLists lists;
  lists.k = k;
  std::uniform_int_distribution<int64_t> pick(0, rowsInLayer - 1);
  for (int anchor = 0; anchor < 12; ++anchor)
    for (int64_t r = 0; r < k; ++r) lists.positions.push_back(anchor == 5 ? 17 : pick(rng));
  lists.rows = lists.positions;

  std::vector<GramKernel> kernels = {GramKernel::Portable, GramKernel::Best};
  if (hasAvx512f()) kernels.push_back(GramKernel::Avx512);
  for (GramKernel kernel : kernels) {
    const std::vector<double> got = neighbourhoodLambdaMax(layer.data(), norm, lists, kernel);
    ASSERT_EQ(got.size(), 12u);
    for (int anchor = 0; anchor < 12; ++anchor) {
      if (anchor == 5) {
        EXPECT_EQ(got[5], kLambdaFloor) << "k copies of one row have no spread";
        continue;
      }
      const std::vector<int64_t> rows(lists.positions.begin() + anchor * k,
                                      lists.positions.begin() + (anchor + 1) * k);
      EXPECT_NEAR(got[size_t(anchor)] / referenceLambdaMax(layer, d, rows), 1.0, 1e-5)
          << "kernel " << int(kernel) << ", anchor " << anchor;
    }
  }
}

}  // namespace
}  // namespace strata::geometry::cpu
