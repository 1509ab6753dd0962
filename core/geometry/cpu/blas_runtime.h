#pragma once
// The system BLAS behind the CPU geometry backend, as the process loaded it. Debian routes
// libblas.so.3 to OpenBLAS through its alternatives; OpenBLAS's extras (name, core, threads)
// are looked up at run time, so the backend also runs, and says so, on the reference BLAS.

#include <string>

namespace strata::geometry::cpu {

/** "OpenBLAS 0.3.21 (Haswell)" when OpenBLAS is loaded, else "BLAS". */
std::string blasName();

/** Threads the BLAS uses for one call: openblas_get_num_threads(), else 1. */
int blasThreads();

}  // namespace strata::geometry::cpu
