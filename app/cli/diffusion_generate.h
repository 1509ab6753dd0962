#pragma once
// The diffusion sides of the generate command: `--bridge RUN` (hybrid generation) and
// `--dlm RUN` (a masked diffusion LM).

#include <string>
#include <vector>

#include "command_line.h"
#include "model/backbone/generation.h"

namespace strata::cli {

/** --prompt and the lines of --prompts FILE. UsageError when there is none. */
std::vector<std::string> promptsFrom(const CommandLine& cli);
/** `generate --bridge RUN` on `device` ("cpu" or "cuda", from --device). */
int runBridgeGeneration(const CommandLine& cli, const model::GenerationConfig& sampling,
                        const std::string& device);
/** `generate --dlm RUN`: sampling from a masked diffusion LM run, on `device`. */
int runDlmGeneration(const CommandLine& cli, const model::GenerationConfig& sampling,
                     const std::string& device);

}  // namespace strata::cli
