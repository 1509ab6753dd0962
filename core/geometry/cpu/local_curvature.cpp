#include "geometry/cpu/local_curvature.h"

#include <cblas.h>

#include <Eigen/Core>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <stdexcept>

namespace strata::geometry::cpu {

std::vector<double> neighbourhoodLambdaMax(const float* normalised, const RowNormalisation& norm,
                                           const NeighbourLists& neighbours) {
  const int64_t d = norm.dims;
  const int64_t k = neighbours.k;
  const int64_t m = static_cast<int64_t>(neighbours.rows.size()) / k;
  std::vector<double> lambda(m);
#pragma omp parallel
  {
    std::vector<float> Y(static_cast<size_t>(k * d));  // the centred neighbours, row-major k×d
    std::vector<double> mean(d);
    std::vector<float> gram(static_cast<size_t>(k * k));
    Eigen::MatrixXd g(k, k);
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(k);
#pragma omp for schedule(dynamic, 8)
    for (int64_t i = 0; i < m; ++i) {
      std::fill(mean.begin(), mean.end(), 0.0);
      for (int64_t r = 0; r < k; ++r) {
        const float* y = normalised + neighbours.positions[i * k + r] * d;
        std::copy_n(y, d, Y.data() + r * d);
        for (int64_t j = 0; j < d; ++j) mean[j] += y[j];
      }
      for (int64_t j = 0; j < d; ++j) mean[j] /= double(k);
      for (int64_t r = 0; r < k; ++r)
        for (int64_t j = 0; j < d; ++j) Y[r * d + j] = static_cast<float>(Y[r * d + j] - mean[j]);
      cblas_ssyrk(CblasRowMajor, CblasLower, CblasNoTrans, int(k), int(d), 1.0f, Y.data(), int(d),
                  0.0f, gram.data(), int(k));
      for (int64_t r = 0; r < k; ++r)
        for (int64_t c = 0; c <= r; ++c)
          g(r, c) = g(c, r) = double(gram[r * k + c]) / double(k - 1);
      solver.compute(g, Eigen::EigenvaluesOnly);
      lambda[i] = std::max(solver.eigenvalues().maxCoeff(), kLambdaFloor);
    }
  }
  return lambda;
}

}  // namespace strata::geometry::cpu
