#include "device_arguments.h"

#include "engine/device_choice.h"

namespace strata::cli {

CommandLine& addDeviceOption(CommandLine& cli) {
  return cli.option("device", "DEV",
                    "cpu, cuda or auto (auto: CUDA when LibTorch sees a device, else the CPU)",
                    "auto");
}

std::string deviceFrom(const CommandLine& cli) {
  const std::string choice = cli.value("device");
  if (choice != "cpu" && choice != "cuda" && choice != "auto")
    throw UsageError("--device must be cpu, cuda or auto, got '" + choice + "'");
  return engine::resolveDevice(choice, "--device");
}

}  // namespace strata::cli
