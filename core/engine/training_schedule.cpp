// The warm-up + cosine schedule (see training_schedule.h).

#include "engine/training_schedule.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace strata::engine {

double WarmupCosineSchedule::at(int64_t step) const {
  if (warmup > 0 && step <= warmup)
    return peak * static_cast<double>(step) / static_cast<double>(warmup);
  const double span = static_cast<double>(std::max<int64_t>(1, steps - warmup));
  const double progress = std::clamp(static_cast<double>(step - warmup) / span, 0.0, 1.0);
  const double cosine = 0.5 * (1.0 + std::cos(std::numbers::pi * progress));
  return peak * (minRatio + (1.0 - minRatio) * cosine);
}

}  // namespace strata::engine
