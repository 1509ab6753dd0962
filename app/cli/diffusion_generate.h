#pragma once
// The diffusion sides of the generate command: `--bridge RUN` (hybrid generation) and
// `--dlm RUN` (a masked diffusion LM).

#include <string>
#include <vector>

#include "command_line.h"
#include "model/generation.h"

namespace strata::cli {

/** --prompt and the lines of --prompts FILE. UsageError when there is none. */
std::vector<std::string> promptsFrom(const CommandLine& cli);
int runBridgeGeneration(const CommandLine& cli, const GenerationConfig& sampling);
/** `generate --dlm RUN`: sampling from a masked diffusion LM run. */
int runDlmGeneration(const CommandLine& cli, const GenerationConfig& sampling);

}  // namespace strata::cli
