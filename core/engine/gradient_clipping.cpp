// Gradient clipping without a host read (see gradient_clipping.h).

#include "engine/gradient_clipping.h"

#include <torch/torch.h>

namespace strata::engine {

torch::Tensor clipGradientNorm(const std::vector<torch::Tensor>& parameters, double maxNorm) {
  std::vector<torch::Tensor> gradients;
  for (const auto& parameter : parameters)
    if (parameter.grad().defined()) gradients.push_back(parameter.grad());
  if (gradients.empty()) return {};
  const bool cuda = gradients.front().is_cuda();
  std::vector<torch::Tensor> norms;
  if (cuda) {
    norms = at::_foreach_norm(gradients, 2);
  } else {  // LibTorch's own sequence, so that CPU runs keep their numbers
    norms.reserve(gradients.size());
    for (const auto& gradient : gradients) norms.push_back(gradient.data().norm(2));
  }
  const torch::Tensor total = norms.size() == 1 ? norms[0] : torch::stack(norms).norm(2);
  const torch::Tensor scale = torch::clamp(maxNorm / (total + 1e-6), std::nullopt, 1.0);
  if (cuda) {
    at::_foreach_mul_(gradients, scale);
  } else {
    for (auto& gradient : gradients) gradient.data().mul_(scale);
  }
  return total;
}

}  // namespace strata::engine
