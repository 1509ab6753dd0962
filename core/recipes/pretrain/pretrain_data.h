#pragma once
// The token streams (recipes/corpus_tokens.h) as tensors: seeded training windows and held-out
// windows; and the pretrain recipe's validation loss, training.json and README.md.

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/config_schema.h"
#include "recipes/corpus_tokens.h"

namespace strata {

class JobContext;
namespace model {
class TrainableLlamaImpl;
}  // namespace model

}  // namespace strata

namespace strata::recipes {

/** `rows` windows of seqLen + 1 tokens [rows, seqLen + 1] int64; window r starts at
 *  SplitMix64(seed, step, firstRow + r) — a pure function of the position in the run. */
at::Tensor trainingWindows(const std::vector<int32_t>& tokens, int64_t seqLen, uint64_t seed,
                           int64_t step, int64_t firstRow, int64_t rows);

/** Held-out windows firstWindow .. firstWindow + rows − 1: [rows, width] int64, window w
 *  starting at token w·stride (stride = width: disjoint; width − 1: sharing one token). */
at::Tensor heldOutWindows(const std::vector<int32_t>& tokens, int64_t firstWindow, int64_t rows,
                          int64_t width, int64_t stride);

/** Mean loss over non-overlapping windows of the held-out tokens (at most maxWindows). */
double validationLoss(model::TrainableLlamaImpl& model, const std::vector<int32_t>& tokens,
                      int64_t seqLen, int64_t batch, int64_t maxWindows, const at::Device& device);

/** training.json and README.md of the exported folder, from run.json's facts and metrics.jsonl. */
void writePretrainDescription(const std::filesystem::path& runFolder,
                              const engine::ResolvedConfig& config,
                              const std::map<std::string, std::string>& facts,
                              const std::string& tokenizerKind);

}  // namespace strata::recipes
