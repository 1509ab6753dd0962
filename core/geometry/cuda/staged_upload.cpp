#include "geometry/cuda/staged_upload.h"

#include <omp.h>

#include <algorithm>
#include <cstring>

#include "geometry/cuda/cuda_status.h"

namespace strata::geometry::cuda_detail {

StagedUpload::StagedUpload() {
  cudaStream_t stream = nullptr;
  checkCuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate (copy)");
  m_copyStream.reset(stream);
  for (Slot& slot : m_slots)
    checkCuda(cudaEventCreateWithFlags(&slot.landed, cudaEventDisableTiming), "cudaEventCreate");
}

StagedUpload::~StagedUpload() {
  // Nothing may still read a pinned buffer when it is freed.
  cudaStreamSynchronize(m_copyStream.get());
  for (Slot& slot : m_slots) {
    if (slot.pinned) cudaFreeHost(slot.pinned);
    if (slot.landed) cudaEventDestroy(slot.landed);
  }
}

void StagedUpload::copy(const float* host, float* device, int64_t count, cudaStream_t consumer) {
  for (int64_t offset = 0; offset < count; offset += kSlotFloats) {
    const int64_t piece = std::min(kSlotFloats, count - offset);
    Slot& slot = m_slots[m_next];
    m_next = (m_next + 1) % m_slots.size();
    if (!slot.pinned)
      checkCuda(cudaHostAlloc(reinterpret_cast<void**>(&slot.pinned), kSlotFloats * sizeof(float),
                              cudaHostAllocDefault),
                "cudaHostAlloc (staging buffer)");
    if (slot.inFlight)
      checkCuda(cudaEventSynchronize(slot.landed), "cudaEventSynchronize (staging buffer)");
    // One thread copies ~5–10 GB/s; the DMA that follows runs at several times that.
    const float* source = host + offset;
    constexpr int64_t kStripe = int64_t(1) << 18;  // 1 MiB of floats per task
    const int64_t stripes = (piece + kStripe - 1) / kStripe;
#pragma omp parallel for schedule(static)
    for (int64_t s = 0; s < stripes; ++s) {
      const int64_t begin = s * kStripe;
      const int64_t length = std::min(kStripe, piece - begin);
      std::memcpy(slot.pinned + begin, source + begin, size_t(length) * sizeof(float));
    }
    checkCuda(cudaMemcpyAsync(device + offset, slot.pinned, size_t(piece) * sizeof(float),
                              cudaMemcpyHostToDevice, m_copyStream.get()),
              "cudaMemcpyAsync (staged rows)");
    checkCuda(cudaEventRecord(slot.landed, m_copyStream.get()), "cudaEventRecord");
    slot.inFlight = true;
    checkCuda(cudaStreamWaitEvent(consumer, slot.landed, 0), "cudaStreamWaitEvent");
  }
}

}  // namespace strata::geometry::cuda_detail
