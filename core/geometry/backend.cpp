#include "geometry/backend.h"

#include <stdexcept>

#include "common/error.h"
#ifdef STRATA_WITH_CUDA
#include "geometry/cuda/cuda_backend.h"
#endif

namespace strata::geometry {

std::vector<ProxyOutcome> GeometryBackend::computeBatch(
    const HiddenStates& states, std::span<const ProxyRequest> requests,
    const std::function<void(int64_t)>& completed) {
  std::vector<ProxyOutcome> out(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    const ProxyRequest& r = requests[i];
    try {
      out[i].result = computeProxies(states, r.rowWeights, r.sampling, r.options);
    } catch (...) {
      out[i].error = std::current_exception();
    }
    completed(int64_t(i + 1));
  }
  if (requests.empty()) completed(0);
  return out;
}

int64_t GeometryBackend::laneBytes(int64_t, int64_t, const ProxyOptions&) const { return 0; }

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
