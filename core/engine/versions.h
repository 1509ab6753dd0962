#pragma once
// Versions of the libraries Strata runs on, for About dialogs, run.json and bug reports.

#include <string>

namespace strata::engine {

struct LibraryVersions {
  std::string libtorch;
  std::string hdf5;
  std::string eigen;
  /** "none" when Strata was built without CUDA; else the CUDA runtime's version and the
   *  driver's ("runtime 12.4, driver 12.8"; "runtime 13.0, no driver" on a machine without one). */
  std::string cuda;
  /** The BLAS library the process actually resolved `cblas_sgemm` to (Debian's alternatives decide
   *  at run time), e.g. "OpenBLAS (openblas-pthread) /usr/lib/…/libblas.so.3"; "unknown" when it
   *  cannot be told. */
  std::string blas;
  /** The CUDA version LibTorch was built with ("13.0" for the pinned wheel), "none" when it is a
   *  CPU-only LibTorch. Independent of Strata's own CUDA geometry backend (`cuda` above). */
  std::string libtorchCuda;
};

LibraryVersions libraryVersions();

}  // namespace strata::engine
