#include "geometry/pca.h"

#include <cblas.h>

#include <Eigen/Dense>
#include <stdexcept>

namespace strata::geometry {
namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Randomised subspace iteration (Halko, Martinsson & Tropp): a few passes of Hcᵀ·Hc over a
// small block of directions find the leading axes with matrix products only, so a
// 65,536 × 4,096 layer never needs its d×d covariance formed for a scatter plot.
constexpr int kBlock = 12;
constexpr int kPasses = 6;

/** op(A)·B, op(A) = Aᵀ or A, through the system BLAS (multithreaded): Hc·B (N×b) and Hcᵀ·T
 *  (d×b) are the two products that cost anything here. */
RowMatrix product(const RowMatrix& a, bool transposeA, const RowMatrix& b) {
  const auto rows = transposeA ? a.cols() : a.rows(), inner = transposeA ? a.rows() : a.cols();
  RowMatrix out(rows, b.cols());
  cblas_sgemm(CblasRowMajor, transposeA ? CblasTrans : CblasNoTrans, CblasNoTrans, int(rows),
              int(b.cols()), int(inner), 1.0f, a.data(), int(a.cols()), b.data(), int(b.cols()),
              0.0f, out.data(), int(out.cols()));
  return out;
}

}  // namespace

PrincipalPlane projectOnPrincipalPlane(const HiddenStates& states) {
  if (states.rows < 2 || states.cols < 1)
    throw std::invalid_argument("a principal plane needs at least two rows and one column");
  const Eigen::Map<const RowMatrix> h(states.data, states.rows, states.cols);
  const Eigen::RowVectorXf mean = h.colwise().mean();
  const RowMatrix centred = h.rowwise() - mean;
  const int64_t d = states.cols;
  const int block = int(std::min<int64_t>(kBlock, d));

  // Fixed start (a deterministic pseudo-random block) so a plot is the same on every open.
  RowMatrix basis(d, block);
  uint64_t state = 0x5EED;
  for (int64_t i = 0; i < basis.size(); ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    basis.data()[i] = float(int64_t(state >> 33) % 2001 - 1000) / 1000.0f;
  }
  for (int pass = 0; pass < kPasses; ++pass) {
    const Eigen::MatrixXf image = product(centred, true, product(centred, false, basis));
    basis = Eigen::HouseholderQR<Eigen::MatrixXf>(image).householderQ() *
            Eigen::MatrixXf::Identity(d, block);
  }
  // Rayleigh–Ritz on the block: the small projected covariance gives the axes and variances.
  const RowMatrix projected = product(centred, false, basis);
  const Eigen::MatrixXd small =
      (projected.transpose() * projected).cast<double>() / double(states.rows - 1);
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(small);
  double total = 0;
  for (int64_t r = 0; r < states.rows; ++r) total += double(centred.row(r).squaredNorm());
  total /= double(states.rows - 1);

  PrincipalPlane plane;
  plane.coordinates.assign(size_t(states.rows) * 2, 0.0f);
  for (int axis = 0; axis < 2 && axis < block; ++axis) {
    const int column = block - 1 - axis;  // eigenvalues ascend
    const Eigen::VectorXf direction = basis * eig.eigenvectors().col(column).cast<float>();
    const Eigen::VectorXf coordinate = centred * direction;
    for (int64_t r = 0; r < states.rows; ++r)
      plane.coordinates[size_t(r) * 2 + axis] = coordinate[r];
    plane.explained[axis] = total > 0 ? eig.eigenvalues()[column] / total : 0;
  }
  return plane;
}

}  // namespace strata::geometry
