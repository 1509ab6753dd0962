#include "common/cpu_features.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#elif defined(__aarch64__)
#include <sys/auxv.h>
#endif

namespace strata {

namespace {

CpuBf16Support detect() {
  CpuBf16Support support;
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  // AVX-512 instructions are usable only where the OS saves their registers; GCC's check of
  // avx512f includes that (XCR0), CPUID's bits alone do not.
  const bool avx512 = __builtin_cpu_supports("avx512f");
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
    const unsigned maxSubleaf = a;
    support.amxbf16 = (d >> 22) & 1u;  // CPUID.(7,0):EDX[22]
    if (maxSubleaf >= 1 && __get_cpuid_count(7, 1, &a, &b, &c, &d))
      support.avx512bf16 = avx512 && ((a >> 5) & 1u);  // CPUID.(7,1):EAX[5]
  }
#elif defined(__aarch64__) && defined(HWCAP2_BF16)
  support.armbf16 = (::getauxval(AT_HWCAP2) & HWCAP2_BF16) != 0;
#endif
  return support;
}

}  // namespace

std::string CpuBf16Support::names() const {
  std::string out;
  const auto add = [&](bool has, const char* name) {
    if (!has) return;
    if (!out.empty()) out += ", ";
    out += name;
  };
  add(avx512bf16, "avx512_bf16");
  add(amxbf16, "amx_bf16");
  add(armbf16, "bf16");
  return out.empty() ? "none" : out;
}

const CpuBf16Support& cpuBf16Support() {
  static const CpuBf16Support support = detect();
  return support;
}

}  // namespace strata
