#pragma once
// Owners of device memory and of the CUDA library handles, for the CUDA geometry backend.
// Internal to core/geometry/cuda/. Allocation failures throw strata::Error (cuda_status.h);
// releases never throw (a failed cudaFree at that point has nothing left to report to).

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusolverDn.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include "geometry/cuda/cuda_status.h"

namespace strata::geometry::cuda_detail {

/** `count` elements of T in device memory (uninitialised; none for count ≤ 0). Move-only. */
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(int64_t count) : m_count(count > 0 ? size_t(count) : 0) {
    if (m_count > 0)
      checkCuda(cudaMalloc(reinterpret_cast<void**>(&m_data), m_count * sizeof(T)),
                ("cudaMalloc of " + std::to_string(m_count * sizeof(T)) + " bytes").c_str());
  }
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : m_data(std::exchange(other.m_data, nullptr)), m_count(std::exchange(other.m_count, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      m_data = std::exchange(other.m_data, nullptr);
      m_count = std::exchange(other.m_count, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { release(); }

  T* data() { return m_data; }
  const T* data() const { return m_data; }
  size_t size() const { return m_count; }

  /** Copies host → device on `stream`; `host` may be reused as soon as this returns. */
  void upload(std::span<const T> host, cudaStream_t stream, size_t offset = 0) {
    if (host.empty()) return;
    checkCuda(cudaMemcpyAsync(m_data + offset, host.data(), host.size_bytes(),
                              cudaMemcpyHostToDevice, stream),
              "cudaMemcpyAsync (host to device)");
    // Pageable sources are staged before cudaMemcpyAsync returns, but a pinned one would not
    // be: synchronise so that callers never have to know which kind they passed.
    checkCuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize (after an upload)");
  }
  /** Copies device → host on `stream` and waits for it (and for all work before it). */
  void download(std::span<T> host, cudaStream_t stream, size_t offset = 0) const {
    if (host.empty()) return;
    checkCuda(cudaMemcpyAsync(host.data(), m_data + offset, host.size_bytes(),
                              cudaMemcpyDeviceToHost, stream),
              "cudaMemcpyAsync (device to host)");
    checkCuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize (after a download)");
  }

 private:
  void release() noexcept {
    if (m_data) cudaFree(m_data);
    m_data = nullptr;
    m_count = 0;
  }

  T* m_data = nullptr;
  size_t m_count = 0;
};

struct StreamDeleter {
  void operator()(cudaStream_t stream) const noexcept { cudaStreamDestroy(stream); }
};
struct CublasDeleter {
  void operator()(cublasHandle_t handle) const noexcept { cublasDestroy(handle); }
};
struct CusolverDeleter {
  void operator()(cusolverDnHandle_t handle) const noexcept { cusolverDnDestroy(handle); }
};

using StreamHandle = std::unique_ptr<std::remove_pointer_t<cudaStream_t>, StreamDeleter>;
using CublasHandle = std::unique_ptr<std::remove_pointer_t<cublasHandle_t>, CublasDeleter>;
using CusolverHandle = std::unique_ptr<std::remove_pointer_t<cusolverDnHandle_t>, CusolverDeleter>;

/** `cache` when it holds at least `count` elements, else a new buffer (the old one freed first). */
template <class T>
DeviceBuffer<T> takeAtLeast(DeviceBuffer<T>& cache, int64_t count) {
  if (int64_t(cache.size()) >= count) return std::move(cache);
  cache = DeviceBuffer<T>();
  return DeviceBuffer<T>(count);
}

}  // namespace strata::geometry::cuda_detail
