// Σx from Σ's float32 triangle (geometry/cpu/symmetric_product.h), the product Lanczos runs for
// the spectrum and λ_max: against the product written out element by element, with the strict
// upper triangle poisoned (NaN) so that a read of it shows, for every order around the kernel's
// blocks of four columns and eight rows; and the leading eigenvalues it gives against dsymv's
// and a dense solver's.

#include <gtest/gtest.h>
#include <omp.h>

#include <Eigen/Dense>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "geometry/cpu/covariance.h"
#include "geometry/cpu/simd.h"
#include "geometry/cpu/symmetric_product.h"

namespace strata::geometry::cpu {
namespace {

/** A random symmetric d×d float32 matrix's lower triangle, column-major; NaN above it. */
std::vector<float> poisonedLower(int64_t d, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  std::vector<float> lower(size_t(d * d), std::numeric_limits<float>::quiet_NaN());
  for (int64_t j = 0; j < d; ++j)
    for (int64_t i = j; i < d; ++i) lower[size_t(j * d + i)] = normal(rng);
  return lower;
}

/** S(i, j) from the lower triangle, in double. */
double element(const std::vector<float>& lower, int64_t d, int64_t i, int64_t j) {
  return i >= j ? lower[size_t(j * d + i)] : lower[size_t(i * d + j)];
}

TEST(GeometrySymmetricProduct, EqualsTheProductElementByElementAndNeverReadsTheUpperTriangle) {
  if (!hasAvx512f()) GTEST_SKIP() << "the kernel needs AVX-512F";
  for (const int64_t d : {1, 2, 3, 4, 5, 7, 8, 9, 11, 12, 13, 15, 16, 17, 20, 31, 64, 67, 201}) {
    const std::vector<float> lower = poisonedLower(d, uint32_t(d));
    std::mt19937 rng(uint32_t(1000 + d));
    std::normal_distribution<double> normal;
    std::vector<double> x(static_cast<size_t>(d)), y(static_cast<size_t>(d), 7.0);
    for (double& v : x) v = normal(rng);
    symmetricProductOfFloatLower(lower.data(), d, x.data(), y.data());
    for (int64_t i = 0; i < d; ++i) {
      long double want = 0, scale = 0;
      for (int64_t j = 0; j < d; ++j) {
        want += (long double)element(lower, d, i, j) * x[size_t(j)];
        scale += std::abs((long double)element(lower, d, i, j) * x[size_t(j)]);
      }
      ASSERT_TRUE(std::isfinite(y[size_t(i)])) << "d = " << d << ", row " << i;
      EXPECT_NEAR(y[size_t(i)], double(want), 1e-15 * double(scale) * double(d))
          << "d = " << d << ", row " << i;
    }
  }
}

TEST(GeometrySymmetricProduct, LanczosFromTheFloatTriangleGivesDsymvsEigenvalues) {
  // A sample covariance with a decaying spectrum, rounded to float32 as the backend's Σ is.
  const int64_t d = 300, rows = 900, count = 64;
  std::mt19937 rng(3);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd x(rows, d);
  for (int64_t j = 0; j < d; ++j)
    for (int64_t i = 0; i < rows; ++i) x(i, j) = normal(rng) / std::sqrt(double(j + 1));
  const Eigen::MatrixXd centred = x.rowwise() - x.colwise().mean();
  const Eigen::MatrixXf rounded = (centred.transpose() * centred / double(rows - 1)).cast<float>();
  const Eigen::MatrixXd sigma = rounded.cast<double>();
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> dense(sigma, Eigen::EigenvaluesOnly);
  for (const int64_t wanted : {int64_t(1), count}) {
    // On one thread (as in a lane of the bootstrap) the products read the float triangle where
    // the CPU has AVX-512F; without it, dsymv on the double Σ.
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    const std::vector<double> fromFloat =
        leadingEigenvalues(sigma.data(), d, wanted, rounded.data());
    omp_set_num_threads(threads);
    const std::vector<double> fromDouble = leadingEigenvalues(sigma.data(), d, wanted);
    ASSERT_EQ(fromFloat.size(), size_t(wanted));
    for (int64_t i = 0; i < wanted; ++i) {
      const double reference = dense.eigenvalues()(d - 1 - i);
      EXPECT_NEAR(fromFloat[size_t(i)], reference, 1e-11 * reference) << "eigenvalue " << i;
      EXPECT_NEAR(fromFloat[size_t(i)], fromDouble[size_t(i)], 1e-11 * reference)
          << "eigenvalue " << i;
    }
  }
}

}  // namespace
}  // namespace strata::geometry::cpu
