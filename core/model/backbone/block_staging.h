#pragma once
// Layer streaming to a CUDA device: while block l computes, block l + 1 is read from the
// mapped checkpoint and converted on a worker thread into pinned host memory, then copied with
// non_blocking on a separate CUDA stream; the compute stream waits only on that copy's event.
// The GPU thus holds two blocks (the one computing and the one arriving), and the host never
// stalls the compute stream for a block it could have read ahead.

#include <c10/core/Device.h>

#include <cstdint>
#include <memory>

#include "model/backbone/block_weights.h"

namespace strata::model {

class WeightLoader;

/**
 * Thread-safety: block() may be called from several threads (one mutex). Ownership: borrows
 * `hostLoader` (a CPU loader in the compute dtype), which must outlive this object. A build
 * without STRATA_WITH_CUDA copies blocks synchronously instead (the same weights).
 */
class CudaBlockStager {
 public:
  CudaBlockStager(const WeightLoader& hostLoader, at::Device device, int64_t numLayers);
  ~CudaBlockStager();
  CudaBlockStager(const CudaBlockStager&) = delete;
  CudaBlockStager& operator=(const CudaBlockStager&) = delete;

  /**
   * Block `layer` on the device, ready for kernels queued on the calling thread's current CUDA
   * stream; starts staging the next block ((layer + 1) mod L: generation loops over the layers
   * once per token). The same layer asked again (capture runs one layer over every batch)
   * returns the staged copy without reading it again.
   */
  std::shared_ptr<const BlockWeights> block(int64_t layer);

 private:
  struct State;
  std::unique_ptr<State> m_state;
};

}  // namespace strata::model
