#pragma once
// Counting NaN and ±Inf values without allocating: a capture checks every stored layer before it
// is written, and the tensor expression it replaced (isfinite(x).sum()) held nine bytes a value
// (a bool mask and its int64 copy for the sum), more than twice the float32 rows it checked.

#include <cstdint>
#include <span>

namespace strata {

/** How many of `values` are NaN or ±Inf, read from their exponent bits (so that no compiler
 *  flag that assumes finite maths can remove the test). One pass, no allocation. */
int64_t countNonFinite(std::span<const float> values);

}  // namespace strata
