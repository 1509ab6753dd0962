// The store's float16 conversions against Eigen::half's (the portable definition), bit for bit,
// for every kernel this CPU has: each float16 value, the floats on both sides of every midpoint
// between neighbours (ties go to even), subnormals, the range's edge, infinities, NaNs, and a
// million random bit patterns; and the index of the first value beyond range.

#include "io/store/float16.h"

#include <gtest/gtest.h>

#include <Eigen/Core>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace strata::io {
namespace {

const Float16Kernel kKernels[] = {Float16Kernel::Best, Float16Kernel::Avx512, Float16Kernel::F16c,
                                  Float16Kernel::Portable};

std::vector<float> probes() {
  std::vector<float> out;
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float value = static_cast<float>(std::bit_cast<Eigen::half>(uint16_t(h)));
    out.push_back(value);
    if (!std::isfinite(value)) continue;
    // The midpoint to the next float16 up, and the floats one and two ulps around it.
    const uint16_t next = uint16_t(h + 1);
    const float above = static_cast<float>(std::bit_cast<Eigen::half>(next));
    if (!std::isfinite(above) || (h & 0x7fff) == 0x7fff) continue;
    const float middle = float((double(value) + double(above)) / 2);
    for (float v = std::nextafter(std::nextafter(middle, -INFINITY), -INFINITY), i = 0; i < 5;
         ++i, v = std::nextafter(v, INFINITY))
      out.push_back(v);
  }
  std::mt19937 random(3);
  for (int i = 0; i < 1'000'000; ++i) {
    const float v = std::bit_cast<float>(uint32_t(random()));
    // Values beyond range stop the conversion: leave them to the test of that below.
    if (!(std::isfinite(v) && std::fabs(v) >= 65520.0f)) out.push_back(v);
  }
  out.push_back(std::numeric_limits<float>::quiet_NaN());
  out.push_back(-std::numeric_limits<float>::quiet_NaN());
  out.push_back(std::bit_cast<float>(0x7fe00001u));  // a NaN whose payload's top bits are set
  out.push_back(std::numeric_limits<float>::signaling_NaN());
  out.push_back(65504.0f);
  out.push_back(std::nextafter(65520.0f, 0.0f));  // the largest float rounding to 65504
  return out;
}

TEST(Float16, EveryKernelRoundsAndWidensAsEigenHalf) {
  const std::vector<float> values = probes();
  std::vector<uint16_t> expected(values.size());
  std::vector<float> widened(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    expected[i] = std::bit_cast<uint16_t>(static_cast<Eigen::half>(values[i]));
    widened[i] = static_cast<float>(std::bit_cast<Eigen::half>(expected[i]));
  }
  for (const Float16Kernel kernel : kKernels) {
    if (!float16KernelAvailable(kernel)) continue;
    SCOPED_TRACE(int(kernel));
    std::vector<uint16_t> half(values.size());
    ASSERT_EQ(toFloat16(values, half.data(), kernel), -1);
    for (size_t i = 0; i < values.size(); ++i)
      ASSERT_EQ(half[i], expected[i]) << "value " << values[i] << " (bits 0x" << std::hex
                                      << std::bit_cast<uint32_t>(values[i]) << ")";
    std::vector<float> back(values.size());
    fromFloat16(half, back.data(), kernel);
    for (size_t i = 0; i < values.size(); ++i)
      ASSERT_EQ(std::bit_cast<uint32_t>(back[i]), std::bit_cast<uint32_t>(widened[i]))
          << "float16 0x" << std::hex << half[i];
  }
}

TEST(Float16, StopsAtTheFirstValueBeyondRange) {
  for (const Float16Kernel kernel : kKernels) {
    if (!float16KernelAvailable(kernel)) continue;
    SCOPED_TRACE(int(kernel));
    for (const size_t at : {size_t(0), size_t(5), size_t(16), size_t(37), size_t(99)}) {
      std::vector<float> values(100, 1.5f);
      values[3] = std::numeric_limits<float>::quiet_NaN();  // NaN is stored, not refused
      values[at] = at % 2 ? -65520.0f : 1e30f;
      values[99 - at / 2] = std::numeric_limits<float>::infinity();  // stored as ±inf
      if (at < 99) values[99] = 70000.0f;
      std::vector<uint16_t> half(values.size(), 0);
      EXPECT_EQ(toFloat16(values, half.data(), kernel), at == 3 ? int64_t(3) : int64_t(at))
          << "at " << at;
      for (size_t i = 0; i < at; ++i) {
        if (i != 3 && !std::isinf(values[i])) {
          EXPECT_EQ(half[i], 0x3e00) << i;  // 1.5
        }
      }
    }
  }
}

TEST(Float16, RefusesAKernelThisCpuLacks) {
  for (const Float16Kernel kernel : kKernels) {
    if (float16KernelAvailable(kernel)) continue;
    float value = 1;
    uint16_t half = 0;
    EXPECT_THROW(toFloat16({&value, 1}, &half, kernel), std::invalid_argument);
  }
}

}  // namespace
}  // namespace strata::io
