// Host batches to the training device (see batch_transfer.h).

#include "engine/batch_transfer.h"

#include <torch/torch.h>

namespace strata::engine {

torch::Tensor toTrainingDevice(const torch::Tensor& host, const torch::Device& device) {
  if (!device.is_cuda() || !host.is_cpu()) return host.to(device);
  // The caching host allocator keeps the pinned block until the copy that reads it is done.
  return host.pin_memory().to(device, /*non_blocking=*/true);
}

}  // namespace strata::engine
