// screenRows against its definition written out the slow way: every pair of rows compared value
// by value (−0 = +0), every entry tested for finiteness, on rows with many copies, signed zeros
// and non-finite entries, for thread counts 1 and 2.

#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "geometry/layer_screening.h"

namespace strata::geometry {
namespace {

RowScreening bruteForce(const std::vector<float>& x, int64_t n, int64_t d) {
  RowScreening out;
  out.rows = n;
  out.group.assign(size_t(n), -1);
  std::vector<bool> finiteRow(size_t(n), true);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < d; ++j) {
      const float v = x[size_t(i * d + j)];
      if (!std::isfinite(v)) {
        finiteRow[size_t(i)] = false;
        ++out.nonFiniteValues;
      } else {
        out.maxAbs = std::max(out.maxAbs, double(std::fabs(v)));
      }
    }
  for (int64_t i = 0; i < n; ++i) {
    if (!finiteRow[size_t(i)]) {
      ++out.nonFiniteRows;
      continue;
    }
    for (int64_t e = 0; e <= i && out.group[size_t(i)] < 0; ++e) {
      if (!finiteRow[size_t(e)]) continue;
      bool equal = true;
      for (int64_t j = 0; j < d && equal; ++j) equal = x[size_t(e * d + j)] == x[size_t(i * d + j)];
      if (equal) out.group[size_t(i)] = e;
    }
    if (out.group[size_t(i)] == i) ++out.distinctRows;
  }
  return out;
}

TEST(GeometryScreening, GroupsRowsAsTheirValuesAndCountsWhatIsNotFinite) {
  for (const int64_t d : {1, 3, 4, 9, 64, 577}) {
    const int64_t n = 600;
    std::mt19937_64 engine{static_cast<uint64_t>(d)};
    std::normal_distribution<float> normal;
    std::vector<float> x(size_t(n * d));
    for (float& v : x) v = normal(engine);
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t kind = engine() % 10;
      float* row = x.data() + i * d;
      if (kind < 4 && i > 0) {  // a copy of an earlier row
        const int64_t source = int64_t(engine() % uint64_t(i));
        for (int64_t j = 0; j < d; ++j) row[j] = x[size_t(source * d + j)];
      } else if (kind == 4) {  // zeros of either sign: equal to each other
        for (int64_t j = 0; j < d; ++j) row[j] = (engine() % 2) ? 0.0f : -0.0f;
      } else if (kind == 5) {  // one non-finite entry among finite ones
        row[engine() % uint64_t(d)] = (engine() % 2) ? std::numeric_limits<float>::quiet_NaN()
                                                     : -std::numeric_limits<float>::infinity();
        row[0] = d > 1 ? 1e30f : row[0];  // a finite maximum inside a non-finite row counts
      } else if (kind == 6) {             // differs from an earlier row in its last value only
        const int64_t source = int64_t(engine() % uint64_t(std::max<int64_t>(i, 1)));
        for (int64_t j = 0; j < d; ++j) row[j] = x[size_t(source * d + j)];
        row[d - 1] = std::nextafter(row[d - 1], 10.0f);
      }
    }
    const RowScreening expected = bruteForce(x, n, d);
    for (const int threads : {1, 2}) {
      const int before = omp_get_max_threads();
      omp_set_num_threads(threads);
      const RowScreening got = screenRows({x.data(), n, d});
      omp_set_num_threads(before);
      EXPECT_EQ(got.rows, n);
      EXPECT_EQ(got.nonFiniteRows, expected.nonFiniteRows) << "d = " << d;
      EXPECT_EQ(got.nonFiniteValues, expected.nonFiniteValues) << "d = " << d;
      EXPECT_EQ(got.distinctRows, expected.distinctRows) << "d = " << d;
      EXPECT_EQ(got.maxAbs, expected.maxAbs) << "d = " << d;
      EXPECT_EQ(got.group, expected.group) << "d = " << d << ", " << threads << " threads";
    }
  }
}

}  // namespace
}  // namespace strata::geometry
