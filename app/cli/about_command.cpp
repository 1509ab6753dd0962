// `strata-cli about`: what this installation is built with and will compute on.

#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>

#include "command_line.h"
#include "commands.h"
#include "common/build_info.h"
#include "common/runtime_tuning.h"
#include "engine/compute_dtype.h"
#include "engine/device_info.h"
#include "engine/versions.h"

namespace strata::cli {

int runAbout(const Arguments& args) {
  CommandLine cli("about",
                  "Print Strata's version, the libraries it was built with, and the\n"
                  "compute device and thread count jobs will use.");
  cli.flag("json", "print one JSON object");
  if (!cli.parse(args)) {
    std::cout << cli.help();
    return 0;
  }
  const engine::ComputeDevice device = engine::currentComputeDevice();
  const engine::LibraryVersions versions = engine::libraryVersions();
  const engine::ComputeChoice compute =
      engine::chooseComputeDType(engine::ComputeDType::Auto, device.cuda ? "cuda" : "cpu");
  // What the start-up set (runtime_tuning.h): at load, before any library initialised (a
  // restart costing the loader's ~20 ms), or later, in a restart that costs ~0.3 s.
  const auto variable = [](const char* name) {
    const char* value = std::getenv(name);
    return std::string(value ? value : "");
  };
  const std::string tunedAtLoad = variable(kTunedAtLoadVariable);
  const std::string restartedFor = variable(kRestartedToTuneVariable);
  if (cli.isSet("json")) {
    nlohmann::ordered_json out;
    out["version"] = build::kVersion;
    out["build_type"] = build::kBuildType;
    out["compiler"] = build::kCompiler;
    out["libtorch"] = versions.libtorch;
    out["libtorch_cuda"] = versions.libtorchCuda;
    out["libtorch_built_with_cuda"] = versions.libtorchCuda != "none";
    out["hdf5"] = versions.hdf5;
    out["eigen"] = versions.eigen;
    out["blas"] = versions.blas;
    out["cuda_libraries"] = versions.cuda;
    out["cuda_built"] = build::kWithCuda;
    out["device"] = device.name;
    out["cuda"] = device.cuda;
    out["threads"] = device.threads;
    if (!device.cuda) out["why_not_cuda"] = device.reasonNoCuda;
    out["cpu_bf16"] = cpuBf16Support().names();
    out["compute_dtype_auto"] = engine::computeDTypeName(compute.dtype);
    out["compute_dtype_auto_reason"] = compute.reason;
    out["set_at_load"] = tunedAtLoad;
    out["restarted_to_set"] = restartedFor;
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::cout << "Strata " << build::kVersion << " (" << build::kBuildType << ", " << build::kCompiler
            << ")\n"
            << "LibTorch  " << versions.libtorch
            << (versions.libtorchCuda != "none" ? " (CUDA " + versions.libtorchCuda + ")"
                                                : std::string(" (CPU only)"))
            << "\n"
            << "HDF5      " << versions.hdf5 << "\n"
            << "Eigen     " << versions.eigen << "\n"
            << "BLAS      " << versions.blas << "\n"
            << "CUDA      "
            << (build::kWithCuda ? "built in: " + versions.cuda : std::string("not built")) << "\n"
            << "Device    " << engine::describe(device) << "\n";
  if (!device.cuda) std::cout << "          (" << device.reasonNoCuda << ")\n";
  std::cout << "Compute   " << engine::computeDTypeName(compute.dtype)
            << " for captures with --compute-dtype auto (" << compute.reason << ")\n";
  std::cout << "Start     "
            << (tunedAtLoad.empty() ? std::string("the environment had the libraries' settings")
                                    : "set " + tunedAtLoad + " before the libraries initialised")
            << (restartedFor.empty() ? std::string()
                                     : "; started again to set " + restartedFor + " (~0.3 s)")
            << "\n";
  return 0;
}

}  // namespace strata::cli
