#pragma once
// The default random generators a training run draws from, kept with each checkpoint so that a
// resumed run draws what the uninterrupted one would have: the CPU's always (rng.pt), and the
// CUDA device's when the run is on one (rng_cuda.pt: the noise of the recipes' training steps
// is drawn there).

#include <c10/core/Device.h>

#include <filesystem>
#include <string>
#include <vector>

namespace strata {

class JobContext;

}  // namespace strata

namespace strata::engine {

/** Writes the generator states of a run on `device` into `folder`; returns the file names. */
std::vector<std::string> saveGeneratorStates(const std::filesystem::path& folder,
                                             at::Device device);

/** Restores what saveGeneratorStates wrote. A checkpoint of a run on another device restores
 *  the CPU's alone; a CUDA run whose checkpoint has no CUDA state (written on the CPU, or
 *  before Strata kept it) warns that its draws will differ from an uninterrupted run's. */
void restoreGeneratorStates(const std::filesystem::path& folder, at::Device device,
                            JobContext& job);

}  // namespace strata::engine
