#include "geometry/cpu/local_curvature.h"

#include <algorithm>
#include <stdexcept>

#include "geometry/cpu/neighbourhood_gram.h"
#include "geometry/cpu/small_symmetric.h"

namespace strata::geometry::cpu {

std::vector<double> neighbourhoodLambdaMax(const float* normalised, const RowNormalisation& norm,
                                           const NeighbourLists& neighbours, GramKernel kernel) {
  const int64_t d = norm.dims;
  const int64_t k = neighbours.k;
  const int64_t m = static_cast<int64_t>(neighbours.rows.size()) / k;
  std::vector<double> lambda(m);
#pragma omp parallel
  {
    // Eight anchors at a time: their λ_max are bisected side by side (LargestEigenvalue::many).
    constexpr int64_t kGroup = 8;
    std::vector<const float*> rows(static_cast<size_t>(k));
    std::vector<float> gram(static_cast<size_t>(k * k));
    std::vector<double> centred(static_cast<size_t>(kGroup * k * k)), sums(static_cast<size_t>(k));
    double* matrices[kGroup];
    double values[kGroup];
    GramScratch scratch;
    LargestEigenvalue largest;
#pragma omp for schedule(dynamic, 1)
    for (int64_t first = 0; first < m; first += kGroup) {
      const int64_t count = std::min(kGroup, m - first);
      for (int64_t c = 0; c < count; ++c) {
        const int64_t i = first + c;
        for (int64_t r = 0; r < k; ++r) rows[r] = normalised + neighbours.positions[i * k + r] * d;
        // G about the first neighbour, then centred in double: G_c = J G J with J = I − 11ᵀ/k,
        // (J G J)_rc = G_rc − s_r/k − s_c/k + s/k² with s_r the row sums and s their total.
        // (Without the s/k² term the matrix would differ only along 1, an eigenvector of J G J
        // for 0, by −s/k ≤ 0: λ_max would not change. It stays, so that `centred` is C_i's
        // Gram.)
        shiftedGram(rows, rows[0], d, gram.data(), scratch, kernel);
        double total = 0;
        for (int64_t r = 0; r < k; ++r) {
          double s = 0;
          for (int64_t col = 0; col < k; ++col)
            s += double(gram[std::max(r, col) * k + std::min(r, col)]);
          sums[r] = s;
          total += s;
        }
        const double inverseK = 1.0 / double(k), scale = 1.0 / double(k - 1);
        const double mean = total * inverseK * inverseK;
        double* own = centred.data() + c * k * k;
        for (int64_t r = 0; r < k; ++r)
          for (int64_t col = 0; col <= r; ++col)
            own[col * k + r] = own[r * k + col] =
                (double(gram[r * k + col]) - (sums[r] + sums[col]) * inverseK + mean) * scale;
        matrices[c] = own;
      }
      largest.many({matrices, size_t(count)}, k, {values, size_t(count)});
      for (int64_t c = 0; c < count; ++c) lambda[first + c] = std::max(values[c], kLambdaFloor);
    }
  }
  return lambda;
}

}  // namespace strata::geometry::cpu
