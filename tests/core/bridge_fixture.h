#pragma once
// Shared by the bridge tests: the built-in default model as the source and a bridge run
// configuration small enough to train in seconds.

#include <filesystem>

#include "engine/config_schema.h"

namespace strata::testing {

/** resources/models/default: a byte-level Llama, 4 layers × 128. */
std::filesystem::path defaultModelFolder();

/** The bridge recipe at layer `layer` on `corpus`: 40 steps of 4 windows of 32 tokens, width
 *  32, one block, evaluation and checkpoints every 20 steps, 5 sampler steps, seed 5. */
ResolvedConfig tinyBridgeConfig(const std::filesystem::path& corpus, int64_t layer);

}  // namespace strata::testing
