// Saving and restoring a run's default generators (see generator_states.h).

#include "engine/generator_states.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <torch/serialize.h>

#include <mutex>
#include <sstream>

#include "common/job.h"
#include "io/atomic_file.h"

namespace strata::engine {

namespace fs = std::filesystem;

namespace {

constexpr const char* kCpuFile = "rng.pt";
constexpr const char* kCudaFile = "rng_cuda.pt";

/** The default generator of `device`: the CPU's, or that CUDA device's (no index: current). */
at::Generator defaultGenerator(at::Device device) {
  if (device.is_cuda()) return at::detail::getCUDAHooks().getDefaultGenerator(device.index());
  return at::detail::getDefaultCPUGenerator();
}

void save(const fs::path& file, at::Generator generator) {
  torch::Tensor state;
  {
    std::lock_guard<std::mutex> lock(generator.mutex());
    state = generator.get_state();
  }
  // Serialised in memory, then written by our own writer: torch's file writer turns a full disk
  // into an exception thrown from a destructor (std::terminate), ours into an IoError.
  std::ostringstream out;
  torch::save(state, out);
  io::writeTextAtomically(file, std::move(out).str());
}

void restore(const fs::path& file, at::Generator generator) {
  torch::Tensor state;
  torch::load(state, file.string());
  std::lock_guard<std::mutex> lock(generator.mutex());
  generator.set_state(state);
}

}  // namespace

std::vector<std::string> saveGeneratorStates(const fs::path& folder, at::Device device) {
  std::vector<std::string> files = {kCpuFile};
  save(folder / kCpuFile, defaultGenerator(at::kCPU));
  if (device.is_cuda()) {
    save(folder / kCudaFile, defaultGenerator(device));
    files.emplace_back(kCudaFile);
  }
  return files;
}

void restoreGeneratorStates(const fs::path& folder, at::Device device, JobContext& job) {
  restore(folder / kCpuFile, defaultGenerator(at::kCPU));
  if (!device.is_cuda()) return;
  if (fs::exists(folder / kCudaFile))
    restore(folder / kCudaFile, defaultGenerator(device));
  else
    job.warning("checkpoint " + folder.string() +
                " holds no CUDA generator state (written on the CPU or by an older Strata): "
                "the resumed run's random draws on " +
                device.str() + " differ from an uninterrupted run's");
}

}  // namespace strata::engine
