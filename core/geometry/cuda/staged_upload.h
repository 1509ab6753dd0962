#pragma once
// Host rows → device memory through two pinned staging buffers, for the CUDA geometry backend.
// A layer of 65,536 × 4,096 floats is 1 GiB: copied from pageable memory in one call, the
// upload runs at the driver's staging speed before any kernel starts. Here host threads copy
// block b + 1 into one pinned buffer while block b's DMA (on a copy stream of its own) and the
// kernels that use it run, so the upload overlaps the covariance.
// Internal to core/geometry/cuda/. Not thread-safe; one per backend object.

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdint>

#include "geometry/cuda/device_memory.h"

namespace strata::geometry::cuda_detail {

class StagedUpload {
 public:
  StagedUpload();
  ~StagedUpload();
  StagedUpload(const StagedUpload&) = delete;
  StagedUpload& operator=(const StagedUpload&) = delete;

  /**
   * Copies `count` floats from `host` to `device`. Returns once `host` may be reused (its data
   * is staged); the copy itself may still run. Work enqueued on `consumer` after this call
   * starts only when the copy has landed.
   */
  void copy(const float* host, float* device, int64_t count, cudaStream_t consumer);

 private:
  struct Slot {
    float* pinned = nullptr;       // kSlotFloats floats of page-locked host memory
    cudaEvent_t landed = nullptr;  // recorded on the copy stream after this slot's last DMA
    bool inFlight = false;
  };
  static constexpr int64_t kSlotFloats = int64_t(1) << 24;  // 64 MiB per slot

  StreamHandle m_copyStream;
  std::array<Slot, 2> m_slots;
  size_t m_next = 0;
};

}  // namespace strata::geometry::cuda_detail
