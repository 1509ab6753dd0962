#include "common/runtime_tuning.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <string_view>

namespace strata {

namespace {

/** OpenBLAS's own name for the core it chose ("Prescott", "Haswell", "SkylakeX", …), or
 *  nullptr when the BLAS in use is not OpenBLAS (Debian's alternatives may pick another). */
const char* openBlasCoreName() {
  using CoreName = char* (*)();
  const auto coreName = reinterpret_cast<CoreName>(::dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  return coreName ? coreName() : nullptr;
}

/** Sets `name` to `value` unless the environment has it (a user's choice); true if it set it. */
bool setUnlessChosen(const char* name, const char* value) {
  return std::getenv(name) == nullptr && ::setenv(name, value, 1) == 0;
}

/** The instruction sets OpenBLAS's SkylakeX kernels need. */
bool hasOpenBlasAvx512() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
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
  const bool avx512 = hasOpenBlasAvx512();
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

namespace {

/** Whether `envp` has a variable called `name` (any value, empty included). */
bool hasVariable(char** envp, const char* name) {
  const std::size_t length = std::strlen(name);
  for (char** entry = envp; entry != nullptr && *entry != nullptr; ++entry)
    if (std::strncmp(*entry, name, length) == 0 && (*entry)[length] == '=') return true;
  return false;
}

}  // namespace

void tuneLibrariesAtLoad(int, char** argv, char** envp) {
  if (argv == nullptr || envp == nullptr || hasVariable(envp, kTunedAtLoadVariable)) return;
  struct Setting {
    const char* name;
    const char* entry;  // NAME=value
    bool wanted;
  };
  static_assert(kOpenBlasThreadTimeout[0] == '2' && kOpenBlasThreadTimeout[1] == '0' &&
                    kOpenBlasThreadTimeout[2] == '\0',
                "the entry below spells kOpenBlasThreadTimeout out");
  const Setting settings[] = {
      {"OMP_WAIT_POLICY", "OMP_WAIT_POLICY=PASSIVE", true},
      {"OPENBLAS_THREAD_TIMEOUT", "OPENBLAS_THREAD_TIMEOUT=20", true},
      {"OPENBLAS_CORETYPE", "OPENBLAS_CORETYPE=SkylakeX", hasOpenBlasAvx512()},
  };
  // The new environment on the stack: no heap before libc and libstdc++ have initialised.
  constexpr std::size_t kMostEntries = 4096;
  char* environment[kMostEntries + 5];
  std::size_t count = 0;
  for (char** entry = envp; *entry != nullptr; ++entry) {
    if (count == kMostEntries) return;  // an environment this large: leave it to main()
    environment[count++] = *entry;
  }
  // The marker names what was set: STRATA_TUNED_AT_LOAD=OMP_WAIT_POLICY,…
  static_assert(std::string_view(kTunedAtLoadVariable) == "STRATA_TUNED_AT_LOAD");
  char marker[128] = "STRATA_TUNED_AT_LOAD=";
  std::size_t markerLength = std::strlen(marker);
  bool added = false;
  for (const Setting& setting : settings) {
    if (!setting.wanted || hasVariable(envp, setting.name)) continue;
    environment[count++] = const_cast<char*>(setting.entry);
    const std::size_t name = std::strlen(setting.name);
    if (added) marker[markerLength++] = ',';
    std::memcpy(marker + markerLength, setting.name, name);
    markerLength += name;
    added = true;
  }
  if (!added) return;
  marker[markerLength] = '\0';
  environment[count++] = marker;
  environment[count] = nullptr;
  // /proc/self/exe, not argv[0]: the program may have been found through PATH.
  ::execve("/proc/self/exe", argv, environment);
  // Only reached when exec failed: go on; runWithTunedLibraries tries again from main().
}

void runWithTunedLibraries(char** argv) {
  std::string set;
  const auto note = [&set](const char* name, bool changed) {
    if (changed) set += (set.empty() ? "" : ",") + std::string(name);
  };
  note("OMP_WAIT_POLICY", setUnlessChosen("OMP_WAIT_POLICY", "PASSIVE"));
  note("OPENBLAS_THREAD_TIMEOUT",
       setUnlessChosen("OPENBLAS_THREAD_TIMEOUT", kOpenBlasThreadTimeout));
  if (const char* core = betterOpenBlasCore(); *core)
    note("OPENBLAS_CORETYPE", ::setenv("OPENBLAS_CORETYPE", core, 1) == 0);
  if (set.empty()) return;
  ::setenv(kRestartedToTuneVariable, set.c_str(), 1);
  // /proc/self/exe, not argv[0]: the program may have been found through PATH.
  ::execv("/proc/self/exe", argv);
  // Only reached when exec failed: go on as we are (the variables now set are harmless).
  ::unsetenv(kRestartedToTuneVariable);
}

}  // namespace strata
