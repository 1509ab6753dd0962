#pragma once
// Where and in which precision the training loop computes (internal to the engine).

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <string>

namespace strata::engine {

/** "cpu", "cuda" or "auto" (CUDA when this LibTorch has it and a device is present), resolved
 *  by resolveDevice (engine/device_choice.h): "cuda" without CUDA throws saying why. */
at::Device trainingDevice(const std::string& choice);

/** "fp32", "bf16" or "auto" (bf16 on a CUDA device that supports it, else fp32). */
bool useBf16(const std::string& precision, const at::Device& device);

/** Turns bf16 autocast on for the current thread's forward passes while it lives (weights
 *  and optimizer stay float32). A no-op when `enabled` is false. */
class AutocastScope {
 public:
  AutocastScope(bool enabled, const at::Device& device);
  ~AutocastScope();
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  bool m_enabled;
  bool m_cuda;
  bool m_previous = false;
  at::ScalarType m_previousType = at::kBFloat16;
};

}  // namespace strata::engine
