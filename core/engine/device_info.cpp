#include "engine/device_info.h"

#include <ATen/Parallel.h>
#include <malloc.h>
#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <string>
#include <thread>

#ifdef STRATA_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace strata::engine {

int defaultThreadCount() {
  if (const char* configured = std::getenv("STRATA_THREADS")) {
    const int threads = std::atoi(configured);
    if (threads > 0) return threads;
  }
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) == 0) return std::max(1, CPU_COUNT(&allowed));
  return std::max(1u, std::thread::hardware_concurrency());
}

void setComputeThreads(int threads) { at::set_num_threads(std::max(1, threads)); }

void reuseFreedTensorMemory() {
  // Buffers up to 32 MiB (glibc's largest mmap threshold) come from the heap; the heap is
  // trimmed only when 2 GiB lie free at its top, and grows 64 MiB at a time.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
  mallopt(M_TOP_PAD, 64 << 20);
}

std::vector<CudaDeviceInfo> listCudaDevices(std::string* reason) {
  std::vector<CudaDeviceInfo> devices;
#ifdef STRATA_WITH_CUDA
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    if (reason) *reason = std::string("no usable CUDA device: ") + cudaGetErrorString(status);
    return devices;
  }
  for (int index = 0; index < count; ++index) {
    cudaDeviceProp properties{};
    if (cudaGetDeviceProperties(&properties, index) != cudaSuccess) continue;
    devices.push_back(
        {index, properties.name, properties.totalGlobalMem, properties.major, properties.minor});
  }
  if (devices.empty() && reason) *reason = "no CUDA device found";
#else
  if (reason) *reason = "Strata was built without CUDA";
#endif
  return devices;
}

ComputeDevice currentComputeDevice() {
  ComputeDevice device;
  device.threads = at::get_num_threads();
  const auto cudaDevices = listCudaDevices(&device.reasonNoCuda);
  if (cudaDevices.empty()) {
    device.name = "CPU";
  } else {
    device.cuda = true;
    device.name = cudaDevices.front().name;
  }
  return device;
}

std::string describe(const ComputeDevice& device) {
  const std::string threads =
      std::to_string(device.threads) + (device.threads == 1 ? " thread" : " threads");
  return (device.cuda ? "CUDA: " + device.name : std::string("CPU")) + " · " + threads;
}

}  // namespace strata::engine
