// The CPU backend's row normalisation (μ, the scales, the float32 rows) against the same
// arithmetic written out here, bit for bit. Its loops are compiled for AVX-512 and AVX2 as well
// and picked at load time; each clone must round exactly as the scalar definition does (no fused
// multiply-adds, each column summed over the rows in order), so the proxies do not depend on the
// CPU that ran them.

#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "geometry/cpu/row_normalisation.h"

namespace strata::geometry::cpu {
namespace {

struct Rows {
  int64_t n = 0, d = 0;
  std::vector<float> values;
  std::vector<float> weights;
};

/** Rows far from the origin (|μ| ≫ spread, where rounding shows) with multiplicity weights. */
Rows offsetRows(int64_t n, int64_t d, uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::normal_distribution<double> normal;
  Rows rows{n, d, std::vector<float>(n * d), std::vector<float>(n)};
  for (int64_t i = 0; i < n; ++i) {
    rows.weights[i] = static_cast<float>(engine() % 4);  // 0 to 3 copies, as a resample's
    for (int64_t j = 0; j < d; ++j)
      rows.values[i * d + j] = static_cast<float>(100.0 + 3.0 * j + normal(engine) * (1 + j % 5));
  }
  rows.weights[0] = 2;  // at least two rows of positive weight
  rows.weights[1] = 1;
  return rows;
}

/** One OpenMP thread for a scope: the reduction's partial sums are then the plain sums. */
struct OneThread {
  const int before = omp_get_max_threads();
  OneThread() { omp_set_num_threads(1); }
  ~OneThread() { omp_set_num_threads(before); }
};

TEST(GeometryRowNormalisation, EveryLoopRoundsAsTheScalarDefinition) {
  const OneThread oneThread;
  for (const int64_t d : {1, 7, 16, 33, 576}) {
    const Rows rows = offsetRows(301, d, uint64_t(d));
    const HiddenStates states{rows.values.data(), rows.n, rows.d};
    const RowNormalisation norm = normaliseRows(states, rows.weights, Normalisation::Standardise);

    std::vector<double> sum(d, 0.0), squares(d, 0.0), mean(d);
    double total = 0;
    for (int64_t i = 0; i < rows.n; ++i) {
      const double w = rows.weights[i];
      if (w == 0) continue;
      total += w;
      for (int64_t j = 0; j < d; ++j) {
        const double product = w * double(rows.values[i * d + j]);
        sum[j] += product;
      }
    }
    for (int64_t j = 0; j < d; ++j) mean[j] = sum[j] / total;
    for (int64_t i = 0; i < rows.n; ++i) {
      const double w = rows.weights[i];
      if (w == 0) continue;
      for (int64_t j = 0; j < d; ++j) {
        const double c = double(rows.values[i * d + j]) - mean[j];
        const double weighted = w * c;
        const double term = weighted * c;
        squares[j] += term;
      }
    }
    for (int64_t j = 0; j < d; ++j) {
      ASSERT_EQ(norm.mean[j], mean[j]) << "d = " << d << ", column " << j;
      ASSERT_EQ(norm.scale[j], 1.0 / std::sqrt(squares[j] / (total - 1)))
          << "d = " << d << ", column " << j;
    }

    std::vector<float> written(norm.rows.size() * d);
    normalisedRows(states, norm, written.data());
    for (size_t r = 0; r < norm.rows.size(); ++r)
      for (int64_t j = 0; j < d; ++j) {
        const double centred = double(rows.values[norm.rows[r] * d + j]) - mean[j];
        const double scaled = centred * norm.scale[j];
        ASSERT_EQ(written[r * d + j], static_cast<float>(scaled * 1.0))
            << "d = " << d << ", row " << r << ", column " << j;
      }
  }
}

}  // namespace
}  // namespace strata::geometry::cpu
