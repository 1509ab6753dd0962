#pragma once
// The --device option every job command takes (capture, generate, score's neighbours, the
// sweeps and comparisons), declared and resolved in one place.

#include <string>

#include "command_line.h"

namespace strata::cli {

/** Declares --device cpu|cuda|auto (default auto) on `cli`. */
CommandLine& addDeviceOption(CommandLine& cli);

/** --device resolved to "cpu" or "cuda" (engine/device_choice.h): UsageError for a value other
 *  than cpu, cuda or auto; strata::Error saying why for cuda where LibTorch sees no device. */
std::string deviceFrom(const CommandLine& cli);

}  // namespace strata::cli
