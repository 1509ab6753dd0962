// Device choice (see device_choice.h).

#include "engine/device_choice.h"

#include <ATen/Context.h>

#include "common/error.h"
#include "engine/device_info.h"

namespace strata::engine {

namespace {

std::string withoutPrefix(const std::string& reason) {
  const std::string prefix = "no usable CUDA device: ";
  return reason.rfind(prefix, 0) == 0 ? reason.substr(prefix.size()) : reason;
}

}  // namespace

bool cudaUsable(std::string* reason) {
  if (at::hasCUDA() && at::getNumGPUs() > 0) return true;
  if (reason) {
    // The CUDA runtime says why (no device, a driver older than the runtime); LibTorch alone
    // would only say "not available".
    std::string runtimeReason;
    const bool runtimeSeesDevice = !listCudaDevices(&runtimeReason).empty();
    // (at::hasCUDA() is false without a device too: it cannot tell a CPU-only LibTorch.)
    if (runtimeSeesDevice)
      *reason =
          "the CUDA runtime lists a device, but LibTorch cannot use it (a CPU-only LibTorch?)";
    else
      *reason = runtimeReason.empty() ? "no CUDA device found" : withoutPrefix(runtimeReason);
  }
  return false;
}

std::string resolveDevice(const std::string& choice, const std::string& origin) {
  if (choice == "cpu") return "cpu";
  if (choice != "cuda" && choice != "auto")
    throw ConfigError({}, origin, "must be cpu, cuda or auto, got '" + choice + "'");
  std::string reason;
  if (cudaUsable(&reason)) return "cuda";
  if (choice == "auto") return "cpu";
  // A configuration the machine cannot honour: a ConfigError, worded whole (no field prefix) so
  // that the CLI's and the run configuration's messages read alike.
  throw ConfigError({}, "",
                    origin + " cuda: this build of LibTorch sees no CUDA device (" + reason + ")");
}

at::Device computeDevice(const std::string& choice, const std::string& origin) {
  return resolveDevice(choice, origin) == "cuda" ? at::Device(at::kCUDA, 0) : at::Device(at::kCPU);
}

}  // namespace strata::engine
