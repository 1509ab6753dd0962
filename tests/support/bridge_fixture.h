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
engine::ResolvedConfig tinyBridgeConfig(const std::filesystem::path& corpus, int64_t layer);

/** Expects the run's 40 logged training losses to fall: the mean of the last five below 0.8×
 *  the mean of the first five. */
void expectLossFalls(const std::filesystem::path& run);

/** Trains `config` in a fresh folder, stopped after `stopAfter` steps, resumes it to the end,
 *  and expects the training and validation losses `reference` (the same run, uninterrupted)
 *  logged, bit for bit. */
void expectResumesExactly(engine::ResolvedConfig config, const std::filesystem::path& reference,
                          int64_t stopAfter = 20);

}  // namespace strata::testing
