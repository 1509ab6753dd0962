#pragma once
// The --device option every job command takes (capture, generate, score's neighbours, the
// sweeps and comparisons), and --compute-dtype of the commands that capture hidden states,
// declared and resolved in one place.

#include <string>

#include "command_line.h"
#include "engine/compute_dtype.h"

namespace strata::cli {

/** Declares --device cpu|cuda|auto (default auto) on `cli`. */
CommandLine& addDeviceOption(CommandLine& cli);

/** --device resolved to "cpu" or "cuda" (engine/device_choice.h): UsageError for a value other
 *  than cpu, cuda or auto; strata::Error saying why for cuda where LibTorch sees no device. */
std::string deviceFrom(const CommandLine& cli);

/** Declares --compute-dtype auto|fp32|bf16 (default auto) on `cli`. */
CommandLine& addComputeDTypeOption(CommandLine& cli);

/** --compute-dtype as given (Auto is resolved by the job, once its device is known); UsageError
 *  for another word. */
engine::ComputeDType computeDTypeFrom(const CommandLine& cli);

}  // namespace strata::cli
