#include "common/non_finite.h"

#include <bit>

namespace strata {

int64_t countNonFinite(std::span<const float> values) {
  // A float32 is NaN or infinite exactly when its 8 exponent bits are all set.
  constexpr uint32_t kExponent = 0x7f800000u;
  int64_t count = 0;
  for (const float v : values) count += (std::bit_cast<uint32_t>(v) & kExponent) == kExponent;
  return count;
}

}  // namespace strata
