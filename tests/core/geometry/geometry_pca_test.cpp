// The principal-plane scatter: its axes and variances against a dense eigen-decomposition of
// the sample covariance, computed here independently.

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <random>

#include "geometry/pca.h"

namespace strata::geometry {
namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

RowMatrix anisotropicCloud(int n, int d, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  RowMatrix x(n, d);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < d; ++j)
      x(i, j) = normal(rng) * (j == 0 ? 5.0f : j == 1 ? 2.0f : 0.3f) + 1.5f;
  // A random rotation, so the axes are not the coordinate axes.
  Eigen::MatrixXf q =
      Eigen::HouseholderQR<Eigen::MatrixXf>(Eigen::MatrixXf::Random(d, d)).householderQ();
  return x * q;
}

TEST(GeometryPca, AxesAndVariancesMatchTheDenseDecomposition) {
  const RowMatrix x = anisotropicCloud(3000, 40, 11);
  const PrincipalPlane plane = projectOnPrincipalPlane({x.data(), x.rows(), x.cols()});
  ASSERT_EQ(plane.coordinates.size(), size_t(2 * x.rows()));

  const Eigen::MatrixXd centred = (x.rowwise() - x.colwise().mean()).cast<double>();
  const Eigen::MatrixXd cov = centred.transpose() * centred / double(x.rows() - 1);
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(cov);
  const int d = int(x.cols());
  for (int axis = 0; axis < 2; ++axis) {
    const Eigen::VectorXd truth = centred * eig.eigenvectors().col(d - 1 - axis);
    double dot = 0, variance = 0;
    for (int r = 0; r < x.rows(); ++r) {
      const double c = plane.coordinates[size_t(r) * 2 + axis];
      dot += c * truth[r];
      variance += c * c;
    }
    variance /= double(x.rows() - 1);
    EXPECT_NEAR(variance, eig.eigenvalues()[d - 1 - axis], 1e-3 * eig.eigenvalues()[d - 1 - axis]);
    // Same axis up to sign: |cos| between the coordinate columns is 1.
    EXPECT_NEAR(std::abs(dot) / (truth.norm() * std::sqrt(variance * double(x.rows() - 1))), 1.0,
                1e-4);
    EXPECT_NEAR(plane.explained[axis], eig.eigenvalues()[d - 1 - axis] / cov.trace(), 1e-4);
  }
}

TEST(GeometryPca, WorksForOneColumnAndRefusesOneRow) {
  const std::vector<float> column{1, 2, 3, 4};
  const PrincipalPlane plane = projectOnPrincipalPlane({column.data(), 4, 1});
  EXPECT_NEAR(std::abs(plane.coordinates[0]), 1.5f, 1e-5f);
  EXPECT_NEAR(plane.explained[0], 1.0, 1e-9);
  EXPECT_EQ(plane.coordinates[1], 0.0f);  // no second axis in one dimension
  EXPECT_THROW(projectOnPrincipalPlane({column.data(), 1, 4}), std::invalid_argument);
}

}  // namespace
}  // namespace strata::geometry
