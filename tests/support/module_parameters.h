#pragma once
// Every parameter a module holds, counted by LibTorch: the reference for the closed forms that a
// training run's memory plan (engine/training_memory.h) counts before it builds the module.

#include <torch/torch.h>

#include <cstdint>

namespace strata::testing {

inline int64_t builtParameters(const torch::nn::Module& module) {
  int64_t count = 0;
  for (const torch::Tensor& p : module.parameters()) count += p.numel();
  return count;
}

}  // namespace strata::testing
