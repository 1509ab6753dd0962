#include "common/human_format.h"

#include <gtest/gtest.h>

#include <cmath>

namespace strata {
namespace {

TEST(HumanFormat, CountsUseThreeSignificantDigits) {
  EXPECT_EQ(formatCount(999), "999");
  EXPECT_EQ(formatCount(260096), "260 K");
  EXPECT_EQ(formatCount(1235814400), "1.24 B");
  EXPECT_EQ(formatCount(8030261248), "8.03 B");
  EXPECT_EQ(formatCount(12500000), "12.5 M");
  EXPECT_EQ(formatCount(999999), "1.00 M");  // rounds up across the unit boundary
  EXPECT_EQ(formatCount(999400), "999 K");
}

TEST(HumanFormat, BytesUseBinaryUnits) {
  EXPECT_EQ(formatBytes(512), "512 B");
  EXPECT_EQ(formatBytes(1536), "1.50 KiB");
  EXPECT_EQ(formatBytes(int64_t{16} << 30), "16.0 GiB");
}

TEST(HumanFormat, SeparatesThousands) {
  EXPECT_EQ(formatWithSeparators(0), "0");
  EXPECT_EQ(formatWithSeparators(1234567), "1,234,567");
  EXPECT_EQ(formatWithSeparators(-1000), "-1,000");
  EXPECT_EQ(formatWithSeparators(100), "100");
}

TEST(HumanFormat, LayerIndicesAsRanges) {
  EXPECT_EQ(formatLayerRanges({}), "");
  EXPECT_EQ(formatLayerRanges({4}), "4");
  EXPECT_EQ(formatLayerRanges({9, 0, 1, 2, 3, 4, 5, 7, 10, 11, 3}), "0–5, 7, 9–11");
  EXPECT_EQ(formatLayerRanges({2, 4}), "2, 4");
}

TEST(HumanFormat, FixedPointWithAChosenMarkForWhatIsNotANumber) {
  EXPECT_EQ(formatFixed(3.14159, 2), "3.14");
  EXPECT_EQ(formatFixed(-0.5, 0), "-0");
  EXPECT_EQ(formatFixed(2.0, 3), "2.000");
  EXPECT_EQ(formatFixed(std::nan(""), 2), "nan");  // a training log must show a NaN loss
  EXPECT_EQ(formatFixed(std::nan(""), 2, "–"), "–");
  EXPECT_EQ(formatFixed(1.0 / 0.0, 1, "–"), "–");
}

}  // namespace
}  // namespace strata
