#pragma once
// Settings that the OpenMP and OpenBLAS libraries read only when they are loaded, before main(),
// and that decide how fast Strata runs on the CPU:
//
// * How idle OpenMP threads wait. libgomp's default lets them spin for a while; with OpenBLAS's
//   own threads and LibTorch's on the same cores, the spinning threads take the cores from the
//   ones with work: on the 2-core build machine, 45 % of `strata-cli score`'s samples were
//   libgomp spinning and OpenBLAS yielding, and OMP_WAIT_POLICY=PASSIVE took the default model's
//   scoring from 44.6 s to 24.2 s and its capture from 21.4 s to 15.4 s (docs/benchmarks.md).
// * Which kernels OpenBLAS uses. Its run-time detection reads the CPU's family and model; a
//   virtual machine that reports a generic "Intel Xeon Processor" (this project's 2-core
//   machines) gets the SSE3 "Prescott" kernels although the CPU has AVX-512: the geometry's
//   float64 products then run at a third of their speed (one layer of an 8B store scored in
//   98 s instead of 31 s; docs/benchmarks.md, "Large models").
// * How long OpenBLAS's idle threads poll (kOpenBlasThreadTimeout below).

namespace strata {

/**
 * How long OpenBLAS's idle threads keep polling for work, as OPENBLAS_THREAD_TIMEOUT: 2^20
 * cycles (≈ 0.3 ms) instead of its default 2^28 (≈ 0.1 s). Between one BLAS call and the next
 * they yield the CPU in a loop; after the geometry's products that loop competed with its OpenMP
 * regions on the same cores and doubled the neighbourhood step now and then (21 against 42 ms at
 * 4,096 × 576; docs/benchmarks.md, "Neighbourhoods"). Short enough for that, long enough that
 * Lanczos' back-to-back products do not wake a sleeping thread each time (2^4 cost it 30 %).
 */
inline constexpr const char* kOpenBlasThreadTimeout = "20";

/**
 * Runs from the executable's .preinit_array (STRATA_TUNE_LIBRARIES_AT_LOAD), after the loader
 * mapped the libraries but before any of them initialised, LibTorch's start-up (~0.3 s)
 * included. When OMP_WAIT_POLICY, OPENBLAS_THREAD_TIMEOUT or, on a CPU with AVX-512 (F, BW, VL,
 * DQ), OPENBLAS_CORETYPE is not set, it starts the program again at once with them set (PASSIVE,
 * kOpenBlasThreadTimeout, SkylakeX) and kTunedAtLoadVariable naming them: that costs the
 * loader's own ~20 ms, where runWithTunedLibraries' later restart costs LibTorch's start-up a
 * second time. (Setting them in place does not work: libc's own initialiser, which runs after
 * this, resets the environment to the one the program was started with.) SkylakeX without
 * asking OpenBLAS what it would detect: every core it can pick for such a CPU runs SkylakeX's
 * float32 and float64 kernels (Cooperlake and SapphireRapids add bf16 ones), and the cores it
 * falls back to (a virtual machine's generic Xeon is detected as Prescott) run slower ones.
 * A user's value is always kept. Uses no heap and no C++ runtime (neither has started).
 */
void tuneLibrariesAtLoad(int argc, char** argv, char** envp);

/** Put once, at namespace scope, in the file with main() of every front end (the CLI, the
 *  workbench, the benchmarks): an entry of the executable's .preinit_array (shared libraries
 *  cannot have one) that calls tuneLibrariesAtLoad before any library initialises. */
#define STRATA_TUNE_LIBRARIES_AT_LOAD                                                  \
  [[gnu::section(".preinit_array"), gnu::used]] static void (*const strataTuneAtLoad)( \
      int, char**, char**) = &::strata::tuneLibrariesAtLoad;

/** Set by tuneLibrariesAtLoad's restart to the variables it set ("OMP_WAIT_POLICY,…"); its
 *  presence also keeps that restart from repeating. */
inline constexpr const char* kTunedAtLoadVariable = "STRATA_TUNED_AT_LOAD";

/** Set by runWithTunedLibraries' restart to the variables it set (`about` says so). */
inline constexpr const char* kRestartedToTuneVariable = "STRATA_RESTARTED_TO_SET";

/**
 * Call first in main(). Sets OMP_WAIT_POLICY=PASSIVE and OPENBLAS_THREAD_TIMEOUT
 * (kOpenBlasThreadTimeout) when they are not set, and OPENBLAS_CORETYPE
 * to the kernels the CPU's instruction set supports (SkylakeX with AVX-512, Haswell with AVX2)
 * when it is not set and OpenBLAS detected an older core than that; then re-executes the
 * program with the same arguments once, when anything was set, with kRestartedToTuneVariable
 * naming what. Returns when nothing needed setting (a user's choice is always kept; with
 * STRATA_TUNE_LIBRARIES_AT_LOAD that is the usual case) or the re-execution fails (the program
 * then runs with the libraries' defaults).
 */
void runWithTunedLibraries(char** argv);

/** The OpenBLAS core to ask for, or "" when OpenBLAS is not loaded, its detection is as good
 *  as the CPU allows, or OPENBLAS_CORETYPE is already set. */
const char* betterOpenBlasCore();

/** The core this CPU could run where the environment's OPENBLAS_CORETYPE keeps OpenBLAS on
 *  older kernels (kept, as every user's choice is: `about` says what it costs), else "". */
const char* heldBackOpenBlasCore();

/** The rule behind it: the core to ask for when OpenBLAS detected `detected` (nullptr: not
 *  OpenBLAS) on a CPU with AVX-512 (F, BW, VL, DQ) or AVX2 + FMA; "" to keep the detected one. */
const char* betterOpenBlasCore(const char* detected, bool avx512, bool avx2);

}  // namespace strata
