// Whether this process can use a CUDA device for the geometry, decided once, with the reason
// when it cannot (no driver, a driver older than the runtime, no device, kernels not built for
// the device's architecture).

#include <cuda_runtime_api.h>

#include <string>

#include "geometry/cuda/cuda_backend.h"
#include "geometry/cuda/cuda_status.h"
#include "geometry/cuda/kernels.h"

namespace strata::geometry {
namespace {

using namespace cuda_detail;

/** Whether a device is usable, decided once per process (the answer does not change). */
struct Availability {
  bool usable = false;
  std::string why;
};

std::string cudaVersionText(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

/** Why the driver is "insufficient": missing altogether, or older than the runtime. */
std::string driverHint() {
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  if (driver == 0) return "; no NVIDIA driver is installed";
  return "; the NVIDIA driver supports CUDA " + cudaVersionText(driver) + ", this build needs " +
         cudaVersionText(runtime);
}

const Availability& availability() {
  static const Availability result = [] {
    Availability a;
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
      cudaGetLastError();  // clear it, so that later calls do not see it
      a.why = "no CUDA device: cudaGetDeviceCount returned " + describeCudaError(status);
      if (status == cudaErrorInsufficientDriver) a.why += driverHint();
      return a;
    }
    if (count == 0) {
      a.why = "no CUDA device: cudaGetDeviceCount found none";
      return a;
    }
    int device = 0;
    cudaDeviceProp properties{};
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaGetDeviceProperties(&properties, device) != cudaSuccess) {
      a.why = "CUDA device could not be queried: " + describeCudaError(cudaGetLastError());
      return a;
    }
    if (const cudaError_t probe = probeKernelImage(); probe != cudaSuccess) {
      cudaGetLastError();
      a.why = "CUDA device " + std::to_string(device) + " (" + properties.name +
              ", compute capability " + std::to_string(properties.major) + "." +
              std::to_string(properties.minor) +
              ") cannot run this build's kernels (built for CMAKE_CUDA_ARCHITECTURES): " +
              describeCudaError(probe);
      return a;
    }
    a.usable = true;
    return a;
  }();
  return result;
}

}  // namespace

bool cudaDeviceAvailable(std::string* why) {
  const Availability& a = availability();
  if (why) *why = a.why;
  return a.usable;
}

}  // namespace strata::geometry
