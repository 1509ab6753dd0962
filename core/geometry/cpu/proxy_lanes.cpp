#include "geometry/cpu/proxy_lanes.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <exception>

#include "common/memory_release.h"
#include "geometry/cpu/blas_runtime.h"

namespace strata::geometry::cpu {

int laneCount(int64_t requests, int64_t laneBytes) {
  int64_t lanes = std::max<int64_t>(1, std::min<int64_t>(omp_get_max_threads(), requests));
  if (lanes > 1 && laneBytes > 0) {
    const int64_t available = memAvailableBytes();
    if (available >= 0) lanes = std::min(lanes, 1 + available / 2 / laneBytes);
  }
  return int(lanes);
}

void runLanes(int lanes, int64_t count, const std::function<void(int lane, int64_t i)>& work,
              const std::function<void(int64_t done)>& completed) {
  if (lanes <= 1) {  // one after another, the BLAS threaded as it is
    for (int64_t i = 0; i < count; ++i) {
      work(0, i);
      completed(i + 1);
    }
    if (count == 0) completed(0);
    return;
  }
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
