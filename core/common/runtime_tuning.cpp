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

const char* betterOpenBlasCore(const char* detected, bool avx512, bool avx2) {
  if (detected == nullptr) return "";
  // Cores at or above what the instruction set gives: nothing to gain.
  if (oneOf(detected, {"SkylakeX", "Cooperlake", "SapphireRapids", "Zen"})) return "";
  if (avx512) return "SkylakeX";
  if (oneOf(detected, {"Haswell"})) return "";
  return avx2 ? "Haswell" : "";
}

namespace {

/** The core the rule asks for on this CPU, given what OpenBLAS runs now. */
const char* betterOpenBlasCoreHere() {
  __builtin_cpu_init();
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return betterOpenBlasCore(openBlasCoreName(), avx512, avx2);
}

}  // namespace

const char* betterOpenBlasCore() {
  return std::getenv("OPENBLAS_CORETYPE") != nullptr ? "" : betterOpenBlasCoreHere();
}

const char* heldBackOpenBlasCore() {
  return std::getenv("OPENBLAS_CORETYPE") == nullptr ? "" : betterOpenBlasCoreHere();
}

void runWithTunedLibraries(char** argv) {
  bool changed = false;
  if (std::getenv("OMP_WAIT_POLICY") == nullptr)
    changed = ::setenv("OMP_WAIT_POLICY", "PASSIVE", 1) == 0 || changed;
  if (std::getenv("OPENBLAS_THREAD_TIMEOUT") == nullptr)
    changed = ::setenv("OPENBLAS_THREAD_TIMEOUT", kOpenBlasThreadTimeout, 1) == 0 || changed;
  if (const char* core = betterOpenBlasCore(); *core)
    changed = ::setenv("OPENBLAS_CORETYPE", core, 1) == 0 || changed;
  if (!changed) return;
  // /proc/self/exe, not argv[0]: the program may have been found through PATH.
  ::execv("/proc/self/exe", argv);
  // Only reached when exec failed: go on as we are (the variables now set are harmless).
}

}  // namespace strata
