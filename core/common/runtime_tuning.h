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
 * Call first in main(). Sets OMP_WAIT_POLICY=PASSIVE and OPENBLAS_THREAD_TIMEOUT
 * (kOpenBlasThreadTimeout) when they are not set, and OPENBLAS_CORETYPE
 * to the kernels the CPU's instruction set supports (SkylakeX with AVX-512, Haswell with AVX2)
 * when it is not set and OpenBLAS detected an older core than that; then re-executes the
 * program with the same arguments once, when anything was set. Returns when nothing needed
 * setting (a user's choice is always kept) or the re-execution fails (the program then runs
 * with the libraries' defaults).
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
