#pragma once
// `generate --bridge RUN`: the hybrid-generation side of the generate command.

#include <string>
#include <vector>

#include "command_line.h"
#include "model/generation.h"

namespace strata::cli {

/** --prompt and the lines of --prompts FILE. UsageError when there is none. */
std::vector<std::string> promptsFrom(const CommandLine& cli);
int runBridgeGeneration(const CommandLine& cli, const GenerationConfig& sampling);

}  // namespace strata::cli
