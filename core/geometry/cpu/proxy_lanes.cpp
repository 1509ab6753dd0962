#include "geometry/cpu/proxy_lanes.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <fstream>
#include <sstream>
#include <string>

#include "geometry/cpu/blas_runtime.h"

namespace strata::geometry::cpu {

namespace {

/** MemAvailable from /proc/meminfo in bytes, or -1 where it cannot be read. */
int64_t availableBytes() {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string key;
    int64_t kilobytes = 0;
    if (fields >> key >> kilobytes && key == "MemAvailable:") return kilobytes * 1024;
  }
  return -1;
}

}  // namespace

int laneCount(int64_t requests, int64_t laneBytes) {
  int lanes =
      std::max(1, std::min<int>(omp_get_max_threads(), int(std::min<int64_t>(requests, 1 << 20))));
  if (lanes > 1 && laneBytes > 0) {
    const int64_t available = availableBytes();
    if (available >= 0)
      lanes = std::min<int64_t>(lanes, 1 + std::max<int64_t>(0, available / 2 / laneBytes));
  }
  return lanes;
}

void runLanes(int lanes, int64_t count, const std::function<void(int lane, int64_t i)>& work,
              const std::function<void(int64_t done)>& completed) {
  std::atomic<int64_t> next{0}, done{0};
  std::atomic<bool> stop{false};
  std::exception_ptr stopped;
  int64_t reported = -1;
  {
    const ScopedBlasThreads single(1);
#pragma omp parallel num_threads(lanes)
    {
      // Nested loops (normalisation, neighbour search) run on this lane's thread alone.
      omp_set_num_threads(1);
      const int lane = omp_get_thread_num();
      while (!stop.load()) {
        const int64_t i = next.fetch_add(1);
        if (i >= count) break;
        work(lane, i);
        const int64_t finished = done.fetch_add(1) + 1;
        if (lane != 0) continue;
        try {
          completed(finished);
          reported = finished;
        } catch (...) {
          stopped = std::current_exception();
          stop.store(true);
        }
      }
    }
  }
  if (stopped) std::rethrow_exception(stopped);
  if (reported != count) completed(count);
}

}  // namespace strata::geometry::cpu
