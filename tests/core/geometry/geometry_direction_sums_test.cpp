// m_mono's direction sums (core/geometry/cpu/direction_sums.h): whichever clone the loader picked
// on this machine (AVX-512, AVX2 or the baseline's), the bits of the arithmetic written out, so
// m_mono does not depend on the CPU it ran on.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "geometry/cpu/direction_sums.h"

namespace strata::geometry::cpu {
namespace {

/** Σ x_j² as the header defines it: element j into partial sum j mod 8, then a fixed order. */
double eightLaneSum(const std::vector<float>& x) {
  const int64_t d = int64_t(x.size());
  double lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t j = 0;
  for (; j + 8 <= d; j += 8)
    for (int l = 0; l < 8; ++l) {
      const double v = x[size_t(j + l)];
      const double square = v * v;  // a named product: never fused into the addition
      lane[l] += square;
    }
  double tail = 0;
  for (; j < d; ++j) {
    const double v = x[size_t(j)];
    const double square = v * v;
    tail += square;
  }
  const double left = (lane[0] + lane[4]) + (lane[1] + lane[5]);
  const double right = (lane[2] + lane[6]) + (lane[3] + lane[7]);
  return (left + right) + tail;
}

TEST(GeometryDirectionSums, EveryCloneRoundsAsTheArithmeticWrittenOut) {
  std::mt19937_64 engine(5);
  std::normal_distribution<double> normal;
  for (const int64_t d : {1, 7, 8, 9, 16, 33, 576, 1001}) {
    // Residual-stream-like rows: offsets far above the spread, scales of varied size.
    const auto n = static_cast<size_t>(d);
    std::vector<float> a(n), b(n), u(n);
    std::vector<double> scale(n);
    for (int64_t j = 0; j < d; ++j) {
      const double offset = 300.0 * normal(engine);
      a[size_t(j)] = float(offset + normal(engine));
      b[size_t(j)] = float(offset + normal(engine));
      scale[size_t(j)] = std::exp(2.0 * normal(engine));
    }
    const double got = formDirection(a.data(), b.data(), scale.data(), u.data(), d);
    std::vector<float> want(n);
    for (int64_t j = 0; j < d; ++j) {
      const double difference = double(a[size_t(j)]) - double(b[size_t(j)]);
      const double scaled = scale[size_t(j)] * difference;
      want[size_t(j)] = float(scaled);
      ASSERT_EQ(u[size_t(j)], want[size_t(j)]) << "d = " << d << ", element " << j;
    }
    const double sum = eightLaneSum(want);
    EXPECT_EQ(got, sum) << "d = " << d;
    EXPECT_EQ(squaredNorm(u.data(), d), sum) << "d = " << d;
    long double exact = 0;
    for (float v : want) exact += (long double)v * (long double)v;
    EXPECT_NEAR(sum, double(exact), 1e-14 * double(exact)) << "d = " << d;
  }
}

}  // namespace
}  // namespace strata::geometry::cpu
