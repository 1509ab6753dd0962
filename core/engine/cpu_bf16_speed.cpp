#include "engine/cpu_bf16_speed.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <limits>
#include <string>

namespace strata::engine {

namespace {

double secondsOf(const at::Tensor& input, const at::Tensor& weight) {
  const auto start = std::chrono::steady_clock::now();
  const at::Tensor out = at::linear(input, weight);
  (void)out.data_ptr();  // the result exists: the work is done
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double measure() {
  at::InferenceMode inference;
  // Deterministic values of unit order: no draw from (and no change to) torch's random state,
  // which a training job in the same process relies on.
  const auto wave = [](int64_t rows, int64_t cols) {
    return at::sin(at::arange(rows * cols, at::kFloat).mul_(0.37f)).reshape({rows, cols});
  };
  const at::Tensor input = wave(512, 1024);
  const at::Tensor weight = wave(1024, 1024);
  const at::Tensor input16 = input.to(at::kBFloat16), weight16 = weight.to(at::kBFloat16);
  secondsOf(input, weight);  // warm-up: kernels chosen, pages touched
  secondsOf(input16, weight16);
  double best32 = std::numeric_limits<double>::infinity(), best16 = best32;
  for (int i = 0; i < 5; ++i) {  // interleaved, so that a busy machine slows both alike
    best32 = std::min(best32, secondsOf(input, weight));
    best16 = std::min(best16, secondsOf(input16, weight16));
  }
  return best16 > 0 ? best32 / best16 : 1.0;
}

}  // namespace

double cpuBf16MatmulSpeedup() {
  static const double speedup = [] {
    if (const char* given = std::getenv("STRATA_CPU_BF16_SPEEDUP"); given && *given) {
      try {
        return std::stod(given);
      } catch (const std::exception&) {
        // not a number: measure instead
      }
    }
    return measure();
  }();
  return speedup;
}

}  // namespace strata::engine
