#include "common/runtime_tuning.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <initializer_list>

namespace strata {

namespace {

/** OpenBLAS's own name for the core it chose ("Prescott", "Haswell", "SkylakeX", …), or
 *  nullptr when the BLAS in use is not OpenBLAS (Debian's alternatives may pick another). */
const char* openBlasCoreName() {
  using CoreName = char* (*)();
  const auto coreName = reinterpret_cast<CoreName>(::dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  return coreName ? coreName() : nullptr;
}

bool oneOf(const char* name, std::initializer_list<const char*> names) {
  for (const char* candidate : names)
    if (::strcasecmp(name, candidate) == 0) return true;
  return false;
}

}  // namespace

const char* betterOpenBlasCore() {
  if (std::getenv("OPENBLAS_CORETYPE") != nullptr) return "";
  const char* detected = openBlasCoreName();
  if (detected == nullptr) return "";
  // Cores at or above what the instruction set gives: nothing to gain.
  if (oneOf(detected, {"SkylakeX", "Cooperlake", "SapphireRapids", "Zen"})) return "";
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
    return "SkylakeX";
  if (oneOf(detected, {"Haswell"})) return "";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
  return "";
}

void runWithTunedLibraries(char** argv) {
  bool changed = false;
  if (std::getenv("OMP_WAIT_POLICY") == nullptr)
    changed = ::setenv("OMP_WAIT_POLICY", "PASSIVE", 1) == 0 || changed;
  if (const char* core = betterOpenBlasCore(); *core)
    changed = ::setenv("OPENBLAS_CORETYPE", core, 1) == 0 || changed;
  if (!changed) return;
  // /proc/self/exe, not argv[0]: the program may have been found through PATH.
  ::execv("/proc/self/exe", argv);
  // Only reached when exec failed: go on as we are (the variables now set are harmless).
}

}  // namespace strata
