#include "common/non_finite.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace strata {
namespace {

TEST(NonFinite, CountsEveryNanAndInfinityAndNothingElse) {
  // 1,001 values, so that a vectorised loop's tail is read too; the extremes of the finite
  // range, subnormals and signed zeros must not count.
  std::vector<float> values(1001);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = float(i) * 0.37f - 100.0f;
  values[3] = std::numeric_limits<float>::max();
  values[4] = -std::numeric_limits<float>::max();
  values[5] = std::numeric_limits<float>::denorm_min();
  values[6] = -0.0f;
  EXPECT_EQ(countNonFinite(values), 0);

  values[0] = std::numeric_limits<float>::quiet_NaN();
  values[500] = std::numeric_limits<float>::infinity();
  values[999] = -std::numeric_limits<float>::infinity();
  values[1000] = -std::numeric_limits<float>::quiet_NaN();
  values[7] = std::numeric_limits<float>::signaling_NaN();
  EXPECT_EQ(countNonFinite(values), 5);
  int64_t reference = 0;
  for (const float v : values) reference += !std::isfinite(v);
  EXPECT_EQ(countNonFinite(values), reference);
  EXPECT_EQ(countNonFinite(std::span<const float>(values).subspan(1, 998)), 2);
  EXPECT_EQ(countNonFinite({}), 0);
}

}  // namespace
}  // namespace strata
