#pragma once
// Internal to gguf_dequantize*.cpp: the per-type block kernels and the bit-level helpers they
// share. Each kernel turns `count` consecutive blocks at `in` into count * blockSize floats at
// `out`, replicating gguf-py's float32 operations exactly (see gguf_dequantize.h).
//
// Where rounding happens: an f16 scale has 11 significant bits, a sub-block scale at most 7 and
// a quant at most 6, so every product these kernels form (d * sc, then * q) is exact in float32
// and only the final `+ m` / `- dm` rounds. That is why the order of the factors is free but
// the product-then-difference structure is not. The kernel files are still compiled with
// -ffp-contract=off (core/CMakeLists.txt) so that a kernel whose products do round (a future
// IQ or MXFP4 one) cannot be fused into an FMA that numpy would not perform.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace strata::io::gguf_blocks {

using Kernel = void (*)(const std::byte* in, int64_t count, float* out);

/** Little-endian u16 at `p` (GGUF is little-endian; so is every machine Strata targets). */
inline uint16_t loadU16(const std::byte* p) {
  uint16_t value;
  std::memcpy(&value, p, sizeof value);
  return value;
}

inline uint32_t loadU32(const std::byte* p) {
  uint32_t value;
  std::memcpy(&value, p, sizeof value);
  return value;
}

/**
 * IEEE half bits to float, exactly as numpy's float16 -> float32 cast: every value, infinities,
 * and NaNs with their payload kept (a signalling NaN stays signalling, as numpy leaves it).
 * Branch-free selects so the F16 loop vectorises. A subnormal half is m * 2^-24 with m < 1024:
 * the int-to-float conversion and the power-of-two product are both exact, and the result is a
 * normal float, so denormals-are-zero modes cannot touch it.
 */
inline float halfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t magnitude = h & 0x7fffu;
  // Rebias the exponent (15 -> 127); an all-ones exponent (inf/NaN) needs it all-ones again.
  uint32_t bits = (magnitude << 13) + 0x38000000u;
  if (magnitude >= 0x7c00u) bits += 0x38000000u;
  float value = std::bit_cast<float>(bits);
  if (magnitude < 0x0400u) value = static_cast<float>(static_cast<int>(magnitude)) * 0x1p-24f;
  return std::bit_cast<float>(std::bit_cast<uint32_t>(value) | sign);
}

inline float loadHalf(const std::byte* p) { return halfToFloat(loadU16(p)); }

inline uint8_t byteAt(const std::byte* p, int i) { return std::to_integer<uint8_t>(p[i]); }

// Plain and 32-element types (gguf_dequantize.cpp).
void dequantizeF32(const std::byte* in, int64_t count, float* out);
void dequantizeF16(const std::byte* in, int64_t count, float* out);
void dequantizeBF16(const std::byte* in, int64_t count, float* out);
void dequantizeQ8_0(const std::byte* in, int64_t count, float* out);
void dequantizeQ4_0(const std::byte* in, int64_t count, float* out);
void dequantizeQ4_1(const std::byte* in, int64_t count, float* out);
void dequantizeQ5_0(const std::byte* in, int64_t count, float* out);
void dequantizeQ5_1(const std::byte* in, int64_t count, float* out);

// K-quants, 256-element super-blocks (gguf_dequantize_k.cpp).
void dequantizeQ2_K(const std::byte* in, int64_t count, float* out);
void dequantizeQ3_K(const std::byte* in, int64_t count, float* out);
void dequantizeQ4_K(const std::byte* in, int64_t count, float* out);
void dequantizeQ5_K(const std::byte* in, int64_t count, float* out);
void dequantizeQ6_K(const std::byte* in, int64_t count, float* out);

}  // namespace strata::io::gguf_blocks
