#include "io/store/stored_values.h"

#include <algorithm>
#include <array>

#include "io/store/float16.h"

namespace strata::io {

int64_t roundAsStored(std::span<float> values, StoreDType dtype) {
  if (dtype == StoreDType::Float32) return -1;
  // The conversions of the writer's encodeRows and the reader's readRows, in that order, a block
  // at a time through a buffer on the stack.
  std::array<uint16_t, 4096> half;
  for (size_t begin = 0; begin < values.size(); begin += half.size()) {
    const std::span<float> block =
        values.subspan(begin, std::min(half.size(), values.size() - begin));
    const int64_t beyond = toFloat16(block, half.data());
    const size_t rounded = beyond < 0 ? block.size() : size_t(beyond);
    fromFloat16({half.data(), rounded}, block.data());
    if (beyond >= 0) return static_cast<int64_t>(begin) + beyond;
  }
  return -1;
}

}  // namespace strata::io
