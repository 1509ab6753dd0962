#include "io/store/float16.h"

#include <cpuid.h>
#include <immintrin.h>

#include <Eigen/Core>
#include <bit>
#include <cmath>
#include <stdexcept>

namespace strata::io {

namespace {

/** One value the portable way: Eigen::half's conversion (the definition the others match). */
inline uint16_t halfOf(float v) { return std::bit_cast<uint16_t>(static_cast<Eigen::half>(v)); }

/** One float16 widened the portable way (exact). */
inline float floatOf(uint16_t bits) { return static_cast<float>(std::bit_cast<Eigen::half>(bits)); }

/** Whether v is finite and rounds beyond float16's largest value. */
inline bool beyondRange(float v) { return std::isfinite(v) && std::fabs(v) >= 65520.0f; }

/** The portable loop over [begin, end): the index of the first value beyond range, or -1. */
int64_t toHalfPortable(std::span<const float> values, uint16_t* out, size_t begin, size_t end) {
  for (size_t i = begin; i < end; ++i) {
    if (beyondRange(values[i])) return static_cast<int64_t>(i);
    out[i] = halfOf(values[i]);
  }
  return -1;
}

// The vector loops hand any block holding a NaN or a value of |x| > 65504 to the portable one:
// the instructions quiet a NaN keeping its payload's top bits where Eigen writes one canonical
// NaN, and the portable loop finds the exact index of a value beyond range.

__attribute__((target("avx512f"))) int64_t toHalfAvx512(std::span<const float> values,
                                                        uint16_t* out) {
  const __m512 limit = _mm512_set1_ps(65504.0f);
  const __m512i signless = _mm512_set1_epi32(0x7fffffff);
  size_t i = 0;
  for (; i + 16 <= values.size(); i += 16) {
    const __m512 x = _mm512_loadu_ps(values.data() + i);
    // (Not _mm512_abs_ps, nor the unmasked conversions: GCC 12's headers fill their
    // pass-through operand with an undefined value that -Wmaybe-uninitialized reports.)
    const __m512 magnitude =
        _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(x), signless));
    // Not (|x| ≤ 65504): NaN or larger.
    if (_mm512_cmp_ps_mask(magnitude, limit, _CMP_NLE_UQ) != 0) {
      if (const int64_t beyond = toHalfPortable(values, out, i, i + 16); beyond >= 0) return beyond;
      continue;
    }
    _mm256_storeu_si256(
        reinterpret_cast<__m256i*>(out + i),
        _mm512_maskz_cvtps_ph(__mmask16(0xFFFF), x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
  return toHalfPortable(values, out, i, values.size());
}

__attribute__((target("avx,f16c"))) int64_t toHalfF16c(std::span<const float> values,
                                                       uint16_t* out) {
  const __m256 limit = _mm256_set1_ps(65504.0f);
  const __m256 signless = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  size_t i = 0;
  for (; i + 8 <= values.size(); i += 8) {
    const __m256 x = _mm256_loadu_ps(values.data() + i);
    const __m256 magnitude = _mm256_and_ps(x, signless);
    if (_mm256_movemask_ps(_mm256_cmp_ps(magnitude, limit, _CMP_NLE_UQ)) != 0) {
      if (const int64_t beyond = toHalfPortable(values, out, i, i + 8); beyond >= 0) return beyond;
      continue;
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                     _mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
  return toHalfPortable(values, out, i, values.size());
}

__attribute__((target("avx512f"))) void fromHalfAvx512(std::span<const uint16_t> bits, float* out) {
  size_t i = 0;
  for (; i + 16 <= bits.size(); i += 16)
    _mm512_storeu_ps(out + i,
                     _mm512_maskz_cvtph_ps(
                         __mmask16(0xFFFF),
                         _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bits.data() + i))));
  for (; i < bits.size(); ++i) out[i] = floatOf(bits[i]);
}

__attribute__((target("avx,f16c"))) void fromHalfF16c(std::span<const uint16_t> bits, float* out) {
  size_t i = 0;
  for (; i + 8 <= bits.size(); i += 8)
    _mm256_storeu_ps(
        out + i,
        _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(bits.data() + i))));
  for (; i < bits.size(); ++i) out[i] = floatOf(bits[i]);
}

Float16Kernel chosen(Float16Kernel kernel) {
  if (kernel == Float16Kernel::Best) {
    static const Float16Kernel best =
        float16KernelAvailable(Float16Kernel::Avx512) ? Float16Kernel::Avx512
        : float16KernelAvailable(Float16Kernel::F16c) ? Float16Kernel::F16c
                                                      : Float16Kernel::Portable;
    return best;
  }
  if (!float16KernelAvailable(kernel))
    throw std::invalid_argument("this CPU lacks the instructions of the float16 kernel asked for");
  return kernel;
}

}  // namespace

bool float16KernelAvailable(Float16Kernel kernel) {
  switch (kernel) {
    case Float16Kernel::Avx512:
      return __builtin_cpu_supports("avx512f");
    case Float16Kernel::F16c: {
      // CPUID's F16C bit (clang's __builtin_cpu_supports does not know "f16c"); "avx" covers the
      // operating system's saving of the YMM registers.
      unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
      return __builtin_cpu_supports("avx") && __get_cpuid(1, &eax, &ebx, &ecx, &edx) &&
             (ecx & bit_F16C) != 0;
    }
    default:
      return true;
  }
}

int64_t toFloat16(std::span<const float> values, uint16_t* out, Float16Kernel kernel) {
  switch (chosen(kernel)) {
    case Float16Kernel::Avx512:
      return toHalfAvx512(values, out);
    case Float16Kernel::F16c:
      return toHalfF16c(values, out);
    default:
      return toHalfPortable(values, out, 0, values.size());
  }
}

void fromFloat16(std::span<const uint16_t> bits, float* out, Float16Kernel kernel) {
  switch (chosen(kernel)) {
    case Float16Kernel::Avx512:
      fromHalfAvx512(bits, out);
      return;
    case Float16Kernel::F16c:
      fromHalfF16c(bits, out);
      return;
    default:
      for (size_t i = 0; i < bits.size(); ++i) out[i] = floatOf(bits[i]);
  }
}

}  // namespace strata::io
