#pragma once
// Gradient clipping by the global 2-norm, without reading the norm to the host: LibTorch's
// clip_grad_norm_ returns a double, so it makes the host wait for the GPU at every step.
// Internal to the training loop.

#include <ATen/core/Tensor.h>

#include <vector>

namespace strata::engine {

/** Scales the gradients of `parameters` so their global 2-norm is at most `maxNorm` (as
 *  torch::nn::utils::clip_grad_norm_, the same operations on the CPU); returns the norm before
 *  clipping as a scalar tensor on the gradients' device (undefined when no gradient exists). On
 *  CUDA the per-tensor norms and the scaling are multi-tensor kernels, as PyTorch's own. */
at::Tensor clipGradientNorm(const std::vector<at::Tensor>& parameters, double maxNorm);

}  // namespace strata::engine
