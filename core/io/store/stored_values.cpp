#include "io/store/stored_values.h"

#include <Eigen/Core>
#include <cmath>

namespace strata::io {

int64_t roundAsStored(std::span<float> values, StoreDType dtype) {
  if (dtype == StoreDType::Float32) return -1;
  for (size_t i = 0; i < values.size(); ++i) {
    // The conversions of the writer's encodeRows and the reader's readRows, in that order.
    const auto half = static_cast<Eigen::half>(values[i]);
    const auto back = static_cast<float>(half);
    if (std::isfinite(values[i]) && !std::isfinite(back)) return static_cast<int64_t>(i);
    values[i] = back;
  }
  return -1;
}

}  // namespace strata::io
