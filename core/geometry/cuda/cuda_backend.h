#pragma once
// Entry points of the CUDA geometry backend. Compiled only in builds with nvcc
// (STRATA_WITH_CUDA); this header includes no CUDA header so plain C++ can call it.

#include <memory>
#include <string>

#include "geometry/backend.h"

namespace strata::geometry {

/** True when the CUDA runtime finds at least one usable device; otherwise `why` says why. */
bool cudaDeviceAvailable(std::string* why);

/** The backend on the current CUDA device; throws strata::Error when none is usable. */
std::unique_ptr<GeometryBackend> makeCudaBackend();

}  // namespace strata::geometry
