#include "model/backbone/block_staging.h"

#include <future>
#include <mutex>

#include "model/backbone/weight_loader.h"

#ifdef STRATA_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>
#endif

namespace strata::model {

namespace {

/** One block on its way to (or on) the device. */
struct StagedBlock {
  int64_t layer = -1;
  std::shared_ptr<BlockWeights> weights;  // on the device
#ifdef STRATA_WITH_CUDA
  at::cuda::CUDAEvent copied;  // recorded on the copy stream after the last copy
#endif
};

}  // namespace

struct CudaBlockStager::State {
  const WeightLoader& loader;
  at::Device device;
  int64_t numLayers;
  std::mutex mutex;
  std::shared_ptr<StagedBlock> current;
  std::future<std::shared_ptr<StagedBlock>> next;
  int64_t nextLayer = -1;

  State(const WeightLoader& hostLoader, at::Device target, int64_t layers)
      : loader(hostLoader), device(target), numLayers(layers) {}

  /** Reads block `layer` on the host and queues its copy to the device (worker thread). */
  std::shared_ptr<StagedBlock> stage(int64_t layer) const {
    auto staged = std::make_shared<StagedBlock>();
    staged->layer = layer;
    staged->weights = std::make_shared<BlockWeights>();
#ifdef STRATA_WITH_CUDA
    const c10::cuda::CUDAGuard onDevice(device);
    const c10::cuda::CUDAStream copyStream = c10::cuda::getStreamFromPool(false, device.index());
    const c10::cuda::CUDAStreamGuard onCopyStream(copyStream);
#endif
    if (loader.gguf()) {
      // A GGUF crosses at its quantised size and is dequantised on the device, on this
      // (copy) stream: the compute stream waits for it like for a copy.
      *staged->weights = loader.blockOn(layer, device);
#ifdef STRATA_WITH_CUDA
      staged->copied.record(copyStream);
#endif
      return staged;
    }
    const BlockWeights host = loader.block(layer);
    for (const BlockSlot& slot : loader.layout().blockSlots) {
      const at::Tensor& source = host.*slot.field;
      if (!source.defined()) continue;
#ifdef STRATA_WITH_CUDA
      // Pinned memory lets the copy run asynchronously (pageable memory would be staged
      // synchronously by the driver); LibTorch's host allocator keeps the pinned buffer until
      // the copy's event completes, even after `source` is dropped here.
      staged->weights.get()->*slot.field = source.pin_memory().to(device, source.scalar_type(),
                                                                  /*non_blocking=*/true);
#else
      staged->weights.get()->*slot.field = source.to(device);
#endif
    }
#ifdef STRATA_WITH_CUDA
    staged->copied.record(copyStream);
#endif
    return staged;
  }

  /** Makes the calling thread's compute stream wait for `staged`'s copies, and tells the
   *  caching allocator that stream uses them (they were allocated on the copy stream). */
  void handOver(StagedBlock& staged) const {
#ifdef STRATA_WITH_CUDA
    const c10::cuda::CUDAStream compute = c10::cuda::getCurrentCUDAStream(device.index());
    staged.copied.block(compute);
    for (const BlockSlot& slot : loader.layout().blockSlots) {
      at::Tensor& tensor = staged.weights.get()->*slot.field;
      if (tensor.defined()) tensor.record_stream(compute);
    }
#else
    (void)staged;
#endif
  }
};

CudaBlockStager::CudaBlockStager(const WeightLoader& hostLoader, at::Device device,
                                 int64_t numLayers)
    : m_state(std::make_unique<State>(hostLoader, device, numLayers)) {}

CudaBlockStager::~CudaBlockStager() {
  // The worker reads through the loader: let it finish before anything goes away.
  if (m_state->next.valid()) m_state->next.wait();
}

std::shared_ptr<const BlockWeights> CudaBlockStager::block(int64_t layer) {
  State& s = *m_state;
  const std::lock_guard<std::mutex> lock(s.mutex);
  if (s.current && s.current->layer == layer) return s.current->weights;
  std::shared_ptr<StagedBlock> staged;
  if (s.next.valid()) {
    std::shared_ptr<StagedBlock> ahead = s.next.get();  // rethrows the worker's error
    if (s.nextLayer == layer) staged = std::move(ahead);
  }
  if (!staged) staged = s.stage(layer);
  s.handOver(*staged);
  s.current = staged;
  // Read the next block while this one computes.
  s.nextLayer = (layer + 1) % s.numLayers;
  if (s.nextLayer != layer)
    s.next = std::async(std::launch::async, [&s, l = s.nextLayer] { return s.stage(l); });
  return {staged, staged->weights.get()};
}

}  // namespace strata::model
