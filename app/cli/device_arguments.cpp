#include "device_arguments.h"

#include "common/error.h"
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

CommandLine& addComputeDTypeOption(CommandLine& cli) {
  return cli.option("compute-dtype", "TYPE",
                    "forward passes in auto, fp32 or bf16 (auto: bf16 on CUDA and on CPUs whose "
                    "native bf16 measures faster than fp32, else fp32; storage keeps --dtype)",
                    "auto");
}

engine::ComputeDType computeDTypeFrom(const CommandLine& cli) {
  try {
    return engine::parseComputeDType(cli.value("compute-dtype"), "--compute-dtype");
  } catch (const ConfigError& e) {
    throw UsageError(e.what());
  }
}

}  // namespace strata::cli
