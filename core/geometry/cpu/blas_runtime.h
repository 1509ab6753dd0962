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

/**
 * Sets the BLAS's threads per call for the object's lifetime (OpenBLAS only; a no-op on other
 * BLAS), then restores them. OpenBLAS's count is process-wide.
 */
class ScopedBlasThreads {
 public:
  explicit ScopedBlasThreads(int threads);
  ~ScopedBlasThreads();
  ScopedBlasThreads(const ScopedBlasThreads&) = delete;
  ScopedBlasThreads& operator=(const ScopedBlasThreads&) = delete;

 private:
  int m_previous;
};

}  // namespace strata::geometry::cpu
