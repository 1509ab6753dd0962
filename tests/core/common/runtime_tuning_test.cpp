// Which OpenBLAS kernels Strata's programs ask for (core/common/runtime_tuning.h): the ones the
// instruction set supports where OpenBLAS's detection from the CPU's family and model fell short.

#include "common/runtime_tuning.h"

#include <gtest/gtest.h>

#include <string>

namespace strata {
namespace {

std::string ask(const char* detected, bool avx512, bool avx2) {
  return betterOpenBlasCore(detected, avx512, avx2);
}

TEST(RuntimeTuning, AsksForTheAvx512KernelsWhereTheDetectionFellShortOfThem) {
  // A virtual machine's generic Xeon is detected as Prescott although it has AVX-512.
  EXPECT_EQ(ask("Prescott", true, true), "SkylakeX");
  EXPECT_EQ(ask("Haswell", true, true), "SkylakeX");
  for (const char* good : {"SkylakeX", "Cooperlake", "SapphireRapids", "skylakex", "Zen"})
    EXPECT_EQ(ask(good, true, true), "") << good;
}

TEST(RuntimeTuning, AsksForTheAvx2KernelsOnlyBelowThem) {
  EXPECT_EQ(ask("Prescott", false, true), "Haswell");
  EXPECT_EQ(ask("Haswell", false, true), "");
  EXPECT_EQ(ask("Zen", false, true), "");
  EXPECT_EQ(ask("Prescott", false, false), "");
  EXPECT_EQ(ask(nullptr, true, true), "");  // not OpenBLAS: nothing to ask for
}

}  // namespace
}  // namespace strata
