#pragma once
// Which compute device Strata will use, found once at start-up. The GUI's status bar and
// `strata-cli about` show it; jobs take it as their default device.

#include <string>
#include <vector>

namespace strata::engine {

struct CudaDeviceInfo {
  int index = 0;
  std::string name;
  std::size_t memoryBytes = 0;
  int computeMajor = 0;
  int computeMinor = 0;
};

struct ComputeDevice {
  bool cuda = false;  ///< true when a CUDA device is present and Strata was built with CUDA
  std::string name;   ///< "CPU" or the CUDA device's name
  int threads = 1;    ///< intra-op threads LibTorch will use on the CPU
  std::string
      reasonNoCuda;  ///< why CUDA is not used (not built with it / no device / driver error)
};

/**
 * Threads for CPU compute: STRATA_THREADS when set, else every core this process may run on.
 * (OpenMP's own default is not trustworthy here: Debian's LibTorch starts with one thread.)
 */
int defaultThreadCount();

/** Sets LibTorch's intra-op thread count. Call at start-up, before any work runs. */
void setComputeThreads(int threads);

/**
 * Makes glibc keep freed activation-sized buffers for reuse instead of returning them to the
 * kernel. By default every buffer above its mmap threshold is mapped and unmapped per tensor,
 * and faulting in those fresh pages cost a capture a quarter of its CPU time (perf, `strata-cli
 * capture`, 2 threads: 8.4 → 6.5 s). Process-wide and best effort (a refused setting leaves
 * the default); call at start-up in processes that run forward passes.
 */
void reuseFreedTensorMemory();

/** CUDA devices visible to this process; empty (with `reason` set) when none can be used. */
std::vector<CudaDeviceInfo> listCudaDevices(std::string* reason = nullptr);

/** The device jobs run on by default: the first CUDA device if any, else the CPU. */
ComputeDevice currentComputeDevice();

/** One line for status bars and logs, e.g. "CPU · 2 threads" or "CUDA: NVIDIA H200 · 16 threads".
 */
std::string describe(const ComputeDevice& device);

}  // namespace strata::engine
