#pragma once
// The learning-rate schedule every recipe trains with: linear warm-up from 0 to the peak over
// `warmup` steps, then cosine decay to minRatio · peak at the last step.

#include <cstdint>

namespace strata::engine {

struct WarmupCosineSchedule {
  double peak = 1e-3;
  int64_t warmup = 0;
  int64_t steps = 1;
  double minRatio = 0.1;
  /** The rate of optimizer step `step` (1-based). */
  double at(int64_t step) const;
};

}  // namespace strata::engine
