#pragma once
// How idle OpenMP threads wait. libgomp's default lets them spin for a while; with OpenBLAS's own
// threads and LibTorch's on the same cores, the spinning threads take the cores from the ones with
// work: on the 2-core build machine, 45 % of `strata-cli score`'s samples were libgomp spinning
// and OpenBLAS yielding, and OMP_WAIT_POLICY=PASSIVE took the default model's scoring from 44.6 s
// to 24.2 s and its capture from 21.4 s to 15.4 s (docs/benchmarks.md).

namespace strata {

/**
 * Call first in main(). When OMP_WAIT_POLICY is not set, sets it to PASSIVE and re-executes the
 * program with the same arguments (libgomp reads the variable only when it is loaded, before
 * main). Returns when the variable is already set (a user's choice is kept) or the re-execution
 * fails (the program then runs with libgomp's default).
 */
void runWithPassiveOpenMpWaits(char** argv);

}  // namespace strata
