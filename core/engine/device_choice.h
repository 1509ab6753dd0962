#pragma once
// The one place a job's `--device cpu|cuda|auto` (or the GUI's Preferences device, or a run's
// `device` setting) becomes the device it runs on. Jobs carry the choice as text in their
// configs (torch-free headers) and the engine turns it into an at::Device here.

#include <c10/core/Device.h>

#include <string>

namespace strata::engine {

/** True when LibTorch can run on a CUDA device here; otherwise `reason` (when given) says why:
 *  the CUDA runtime's own words (no device, a driver too old) or a LibTorch without CUDA. */
bool cudaUsable(std::string* reason = nullptr);

/**
 * "cpu" → "cpu"; "cuda" → "cuda" when cudaUsable(), else ConfigError("<origin> cuda: this build of
 * LibTorch sees no CUDA device (<reason>)"); "auto" → "cuda" when usable, else "cpu". Anything
 * else: ConfigError naming `origin` (e.g. "--device", or "device" in a run configuration).
 */
std::string resolveDevice(const std::string& choice, const std::string& origin = "--device");

/** resolveDevice(choice, origin) as the device LibTorch computes on (CUDA: device 0). */
at::Device computeDevice(const std::string& choice, const std::string& origin = "device");

}  // namespace strata::engine
