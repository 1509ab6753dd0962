#pragma once
// Internal to the CUDA backend: a call's inputs checked on the host (the CPU backend's rules,
// plus the kernels' limits) and its row indices narrowed to the kernels' int32.

#include <cstdint>
#include <span>
#include <vector>

#include "geometry/backend.h"

namespace strata::geometry::cuda_detail {

/** The host side of one call: checked inputs, indices narrowed to the kernels' int32. */
struct CheckedInputs {
  int64_t rows = 0, cols = 0;
  int32_t k = 0;
  double totalWeight = 0;              // W = Σ w
  std::vector<int32_t> active;         // rows of positive weight, ascending
  std::vector<int32_t> anchors;        // sampling.anchors
  std::vector<int32_t> first, second;  // sampling.pairs
};

/** Throws std::invalid_argument naming the setting or row that the backend cannot take. */
CheckedInputs checkInputs(const HiddenStates& states, std::span<const float> weights,
                          const TokenSampling& sampling, const ProxyOptions& options);

}  // namespace strata::geometry::cuda_detail
