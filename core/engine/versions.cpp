#include "engine/versions.h"

#include <ATen/detail/CUDAHooksInterface.h>
#include <torch/version.h>
#include <dlfcn.h>
#include <hdf5.h>

#include <Eigen/Core>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

#include "common/runtime_tuning.h"

#ifdef STRATA_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace strata::engine {

namespace {

/** CUDA encodes versions as 1000 * major + 10 * minor. */
std::string cudaVersionText(long version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

/** The CUDA version LibTorch itself was built against ("none" for a CPU-only LibTorch): its CUDA
 *  hooks are registered only when libtorch_cuda is part of the process. */
std::string libtorchCudaVersion() {
  const at::CUDAHooksInterface& hooks = at::detail::getCUDAHooks();
  if (!hooks.hasCUDART()) return "none";
  try {
    return cudaVersionText(hooks.versionCUDART());
  } catch (const std::exception&) {
    return "none";
  }
}

std::string cudaVersions() {
#ifdef STRATA_WITH_CUDA
  int runtime = 0;
  int driver = 0;
  // Both calls answer without a device; the driver's is 0 when no driver is installed.
  if (cudaRuntimeGetVersion(&runtime) != cudaSuccess) runtime = 0;
  if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = 0;
  std::string text = "runtime " + (runtime > 0 ? cudaVersionText(runtime) : std::string("?"));
  text += driver > 0 ? ", driver " + cudaVersionText(driver) : std::string(", no driver");
  return text;
#else
  return "none";
#endif
}

/** Names the library `cblas_sgemm` (what the geometry backend calls) resolves to in this
 *  process. Debian routes libblas.so.3 through update-alternatives, so the link-time name says
 *  nothing: follow the loaded file's symlinks. (Not `sgemm_`: LibTorch's wheel exports its own
 *  MKL `sgemm_`, which only LibTorch calls.) */
std::string blasInUse() {
  void* sgemm = dlsym(RTLD_DEFAULT, "cblas_sgemm");
  Dl_info info{};
  if (sgemm == nullptr || dladdr(sgemm, &info) == 0 || info.dli_fname == nullptr) return "unknown";
  std::error_code error;
  std::filesystem::path file = std::filesystem::canonical(info.dli_fname, error);
  if (error) file = info.dli_fname;
  const std::string path = file.string();

  // A libopenblas build that exports its own configuration says exactly what it is.
  using ConfigFunction = const char* (*)();
  if (auto config = reinterpret_cast<ConfigFunction>(dlsym(RTLD_DEFAULT, "openblas_get_config"))) {
    std::string text = std::string(config()) + " " + path;
    // Read when the library loaded: the front ends set it (common/runtime_tuning.h).
    if (const char* timeout = std::getenv("OPENBLAS_THREAD_TIMEOUT"); timeout && *timeout)
      text += "; idle threads poll 2^" + std::string(timeout) + " cycles (OPENBLAS_THREAD_TIMEOUT)";
    if (const std::string better = heldBackOpenBlasCore(); !better.empty())
      text += " (OPENBLAS_CORETYPE=" + std::string(std::getenv("OPENBLAS_CORETYPE")) +
              " in the environment holds it below this CPU's " + better +
              " kernels, which run the geometry's products up to ~1.8x faster: unset it)";
    return text;
  }
  const std::string folder = file.parent_path().filename().string();
  if (path.find("openblas") != std::string::npos) return "OpenBLAS (" + folder + ") " + path;
  if (path.find("mkl") != std::string::npos) return "Intel MKL " + path;
  if (path.find("blis") != std::string::npos) return "BLIS " + path;
  if (path.find("atlas") != std::string::npos) return "ATLAS " + path;
  if (folder == "blas") return "reference BLAS (netlib) " + path;
  return path;
}

}  // namespace

LibraryVersions libraryVersions() {
  unsigned major = 0, minor = 0, release = 0;
  H5get_libversion(&major, &minor, &release);
  return {
      TORCH_VERSION,
      std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(release),
      std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
          std::to_string(EIGEN_MINOR_VERSION),
      cudaVersions(),
      blasInUse(),
      libtorchCudaVersion(),
  };
}

}  // namespace strata::engine
