#pragma once
// Internal to the CUDA backend: wall seconds per stage of one call (`strata-cli score
// --time-stages`), each lap waiting for the stream first so that it times the device's work.

#include <cuda_runtime_api.h>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "geometry/cuda/cuda_status.h"

namespace strata::geometry::cuda_detail {

/** Wall seconds per stage into `out` when on: each lap waits for the stream to finish first. */
class StageClock {
 public:
  StageClock(bool on, cudaStream_t stream, std::vector<std::pair<std::string, double>>& out)
      : m_on(on), m_stream(stream), m_out(out), m_last(std::chrono::steady_clock::now()) {}
  void lap(const std::string& stage) {
    if (!m_on) return;
    checkCuda(cudaStreamSynchronize(m_stream), "cudaStreamSynchronize (stage timing)");
    const auto now = std::chrono::steady_clock::now();
    m_out.emplace_back(stage, std::chrono::duration<double>(now - m_last).count());
    m_last = now;
  }

 private:
  bool m_on;
  cudaStream_t m_stream;
  std::vector<std::pair<std::string, double>>& m_out;
  std::chrono::steady_clock::time_point m_last;
};

}  // namespace strata::geometry::cuda_detail
