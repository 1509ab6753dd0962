#pragma once
// Shared by the training tests: a small learnable corpus, a tiny pretrain configuration that
// trains in about a second, and readers of what a run folder logged.

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "engine/config_schema.h"
#include "engine/training_run.h"

namespace strata::testing {

/** Sentences from a tiny grammar, one paragraph per document (120 documents). */
void writeToyCorpus(const std::filesystem::path& file);

/** The pretrain recipe at a toy size on `corpus`: 30 steps of 8 windows of 32 tokens, dim 32,
 *  2 layers, 4 heads with 2 key/value heads, log every step, checkpoint every 10, seed 3. */
engine::ResolvedConfig tinyPretrainConfig(const std::filesystem::path& corpus);

/** Trains the pretrain recipe in this thread with a silent sink. */
engine::TrainingSummary trainTiny(const engine::ResolvedConfig& config,
                                  const std::filesystem::path& runFolder,
                                  engine::TrainingControl control = {});
/** Trains `recipe` in this thread with a silent sink. */
engine::TrainingSummary trainRecipe(const std::string& recipe, const engine::ResolvedConfig& config,
                                    const std::filesystem::path& runFolder,
                                    engine::TrainingControl control = {});
engine::TrainingSummary resumeTiny(const std::filesystem::path& runFolder,
                                   const std::vector<std::string>& overrides = {});

/** step → "loss" of every metrics.jsonl line that has one. */
std::map<int64_t, double> loggedLosses(const std::filesystem::path& runFolder);
/** step → "val_loss". */
std::map<int64_t, double> loggedValLosses(const std::filesystem::path& runFolder);

/** True when every tensor of the two model.safetensors files is bit-for-bit equal. */
bool sameWeights(const std::filesystem::path& a, const std::filesystem::path& b);
/** The largest max|a − b| / max|b| over the tensors of two model.safetensors files. */
double largestRelativeDifference(const std::filesystem::path& a, const std::filesystem::path& b);

}  // namespace strata::testing
