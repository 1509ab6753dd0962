#pragma once
// Tiny run configurations of the recipes whose tests build them from parts (the dcdm family
// and repr_align), shared by those tests and by the CUDA training test (cuda_training_test.cpp),
// which runs every recipe's own tiny configuration on the GPU.

#include <filesystem>
#include <string>

#include "engine/config_schema.h"

namespace strata::testing {

/** The dcdm recipe, variant mdlm, bdlm or dcdm, on `corpus`: 20 steps of 4 windows of 32
 *  tokens, dim 32, one layer, 4 chunks, blocks of 8, evaluation and checkpoints every 10, seed 11.
 */
engine::ResolvedConfig tinyDlmConfig(const std::filesystem::path& corpus,
                                     const std::string& variant);

/** A random model of `architecture` (an io/hf/hf_config.h Architecture, as int to keep this header
 *  light) with the byte tokenizer's 258 ids and its tokenizer files, written into `folder`. */
std::filesystem::path randomByteModel(const std::filesystem::path& folder, int architecture);

/** The repr_align recipe converting `model` on `corpus`: 24 steps of 8 windows of 16 tokens,
 *  evaluation and checkpoints every 12, seed 5, alignment weight `lambda`. */
engine::ResolvedConfig tinyConversion(const std::filesystem::path& model,
                                      const std::filesystem::path& corpus, double lambda = 10);

}  // namespace strata::testing
