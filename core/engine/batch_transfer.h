#pragma once
// A batch built on the host (token windows) moved to the training device without making the
// host wait for the GPU: a plain copy from pageable memory returns only when the GPU has run
// everything queued before it, so the next step could not be queued meanwhile.

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

namespace strata::engine {

/** `host` on `device`: on CUDA through pinned memory, asynchronously (ordered on the stream
 *  before the kernels that read it); elsewhere an ordinary copy (none on the CPU). */
at::Tensor toTrainingDevice(const at::Tensor& host, const at::Device& device);

}  // namespace strata::engine
