#include "geometry/backend.h"

#include <stdexcept>

#include "common/error.h"
#ifdef STRATA_WITH_CUDA
#include "geometry/cuda/cuda_backend.h"
#endif

namespace strata::geometry {

DeviceChoice parseDeviceChoice(const std::string& text) {
  if (text == "auto") return DeviceChoice::Auto;
  if (text == "cpu") return DeviceChoice::Cpu;
  if (text == "cuda") return DeviceChoice::Cuda;
  throw ConfigError({}, "device", "unknown device '" + text + "' (expected cpu, cuda or auto)");
}

bool cudaBackendAvailable(std::string* why) {
#ifdef STRATA_WITH_CUDA
  return cudaDeviceAvailable(why);
#else
  if (why) *why = "this build of Strata has no CUDA backend (built without nvcc)";
  return false;
#endif
}

std::unique_ptr<GeometryBackend> makeGeometryBackend(DeviceChoice choice) {
  std::string why;
  switch (choice) {
    case DeviceChoice::Cpu:
      return makeCpuBackend();
    case DeviceChoice::Auto:
      if (!cudaBackendAvailable(&why)) return makeCpuBackend();
      break;
    case DeviceChoice::Cuda:
      if (!cudaBackendAvailable(&why)) throw Error("cannot use --device cuda: " + why);
      break;
  }
#ifdef STRATA_WITH_CUDA
  return makeCudaBackend();
#else
  throw Error("cannot use --device cuda: " + why);
#endif
}

}  // namespace strata::geometry
