// Training device and precision (see training_device.h).

#include "engine/training_device.h"

#include <ATen/autocast_mode.h>
#include <torch/torch.h>

#include "engine/device_choice.h"

namespace strata::engine {

torch::Device trainingDevice(const std::string& choice) { return computeDevice(choice, "device"); }

bool useBf16(const std::string& precision, const torch::Device& device) {
  if (precision == "bf16") return true;
  if (precision != "auto" || !device.is_cuda()) return false;
  return true;  // every CUDA device LibTorch supports today computes bf16 (Ampere and newer
                // natively)
}

AutocastScope::AutocastScope(bool enabled, const torch::Device& device)
    : m_enabled(enabled), m_cuda(device.is_cuda()) {
  if (!m_enabled) return;
  const at::DeviceType type = m_cuda ? at::kCUDA : at::kCPU;
  m_previous = at::autocast::is_autocast_enabled(type);
  m_previousType = at::autocast::get_autocast_dtype(type);
  at::autocast::set_autocast_dtype(type, at::kBFloat16);
  at::autocast::set_autocast_enabled(type, true);
  at::autocast::increment_nesting();
}

AutocastScope::~AutocastScope() {
  if (!m_enabled) return;
  // The cast weights are cached per autocast region; drop them when the outermost one ends.
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  const at::DeviceType type = m_cuda ? at::kCUDA : at::kCPU;
  at::autocast::set_autocast_enabled(type, m_previous);
  at::autocast::set_autocast_dtype(type, m_previousType);
}

}  // namespace strata::engine
