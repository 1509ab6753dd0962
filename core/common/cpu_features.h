#pragma once
// What the processor this job runs on can multiply natively, asked of the CPU itself (CPUID on
// x86-64, the kernel's hardware capabilities on AArch64), not of the compiler: Strata's binaries
// are built for a generic x86-64, and the machine they run on decides.

#include <string>

namespace strata {

/** The bf16 instructions the CPU has; any of them makes LibTorch's bf16 matmuls (oneDNN) run
 *  at native speed rather than through float32 conversions. */
struct CpuBf16Support {
  bool avx512bf16 = false;  ///< AVX512_BF16 (AMD Zen 4+, Intel Cooper Lake and Sapphire Rapids+)
  bool amxbf16 = false;     ///< AMX-BF16 tiles (Intel Sapphire Rapids+)
  bool armbf16 = false;     ///< Armv8.6 BF16 (FEAT_BF16)
  bool any() const { return avx512bf16 || amxbf16 || armbf16; }
  /** "avx512_bf16, amx_bf16", as /proc/cpuinfo names the flags; "none" without any. */
  std::string names() const;
};

/** This machine's bf16 support (asked once, then remembered). */
const CpuBf16Support& cpuBf16Support();

}  // namespace strata
