#pragma once
// float32 ↔ float16 for activation stores: round to nearest even and widen exactly, bit for bit
// what Eigen::half's conversions give (the reference the tests hold it to), with the CPU's own
// conversion instructions where it has them (AVX-512F, or F16C), since the build targets
// baseline x86-64 and Eigen's portable conversion is a few nanoseconds a value.

#include <cstdint>
#include <span>

namespace strata::io {

/** Which conversion code runs: the best this CPU has, or one named (for the tests). */
enum class Float16Kernel { Best, Avx512, F16c, Portable };

/** Whether this CPU can run `kernel` (Best and Portable: always). */
bool float16KernelAvailable(Float16Kernel kernel);

/**
 * out[i] = the float16 bits nearest `values[i]` (ties to even; NaN stays NaN, its sign kept, as
 * Eigen::half makes it). Stops at the first finite value beyond float16's range (|x| ≥ 65520,
 * which rounds to infinity) and returns its index, else returns -1. Throws
 * std::invalid_argument for a kernel this CPU lacks.
 */
int64_t toFloat16(std::span<const float> values, uint16_t* out,
                  Float16Kernel kernel = Float16Kernel::Best);

/** out[i] = the float16 `bits[i]` widened (exact). */
void fromFloat16(std::span<const uint16_t> bits, float* out,
                 Float16Kernel kernel = Float16Kernel::Best);

}  // namespace strata::io
