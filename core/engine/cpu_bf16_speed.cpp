#include "engine/cpu_bf16_speed.h"

#include <ATen/ATen.h>
#include <torch/version.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <system_error>

#include "common/cpu_features.h"
#include "common/install_paths.h"
#include "io/atomic_file.h"

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

/** The processor, its bf16 instructions, LibTorch and the thread count: what the ratio depends
 *  on. Another key means another measurement. */
std::string machineKey() {
  std::string model;
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 1);
      break;
    }
  std::ostringstream key;
  key << model << " | " << cpuBf16Support().names() << " | torch " << TORCH_VERSION << " | "
      << at::get_num_threads() << " threads";
  return key.str();
}

/**
 * The ratio measured on this machine before (userDataFolder()/cpu-bf16-speed.txt: the key, a
 * tab, the ratio), so that one machine always makes the same choice and the default model's
 * cache keeps one store; measured and written when missing or for another key.
 */
double rememberedOrMeasured() {
  const std::string key = machineKey();
  std::filesystem::path file;
  try {
    file = userDataFolder() / "cpu-bf16-speed.txt";
  } catch (const std::exception&) {
    return measure();  // no data folder: measure every time
  }
  if (std::ifstream in(file); in) {
    std::string storedKey, ratio;
    if (std::getline(in, storedKey, '\t') && std::getline(in, ratio) && storedKey == key) {
      try {
        return std::stod(ratio);
      } catch (const std::exception&) {
        // unreadable: measure again
      }
    }
  }
  const double speedup = measure();
  try {
    std::error_code ignored;
    std::filesystem::create_directories(file.parent_path(), ignored);
    io::writeTextAtomically(file, key + "\t" + std::to_string(speedup) + "\n");
  } catch (const std::exception&) {
    // a read-only data folder: the measurement still holds for this process
  }
  return speedup;
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
    return rememberedOrMeasured();
  }();
  return speedup;
}

}  // namespace strata::engine
