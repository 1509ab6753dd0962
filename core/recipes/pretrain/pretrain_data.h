#pragma once
// The pretrain recipe's data and its run description: the token stream cut into training and
// held-out parts, seeded training windows, the validation loss, training.json and README.md.

#include <torch/torch.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/config_schema.h"
#include "io/corpus.h"

namespace strata {

class JobContext;
class Tokenizer;
class TrainableLlamaImpl;

struct TokenSplit {
  std::vector<int32_t> train, val;
};

/** The data settings every corpus-trained recipe shares: corpus (required unless
 *  `corpusRequired` is false), corpus_format, split, jsonl_field. */
std::vector<SettingSpec> corpusSettings(bool corpusRequired = true);

/** A draw in [0, n) that is a pure function of (seed, step, row): SplitMix64 (Steele, Lea &
 *  Flood 2014), portable, so the data order is the same on every platform and after a resume. */
uint64_t seededDraw(uint64_t seed, int64_t step, int64_t row, uint64_t n);

/** The run's tokenizer: rank 0 writes `source`'s files (byte or a tokenizer folder/file) into
 *  the run folder, where they belong to the exported model; other ranks read a private copy so
 *  they never race it. */
std::unique_ptr<Tokenizer> setUpRunTokenizer(const std::string& source,
                                             const std::filesystem::path& runFolder, int rank);

/** corpus_format, split and jsonl_field of a pretrain config (ConfigError when unknown). */
CorpusOptions pretrainCorpusOptions(const ResolvedConfig& config);

/** Documents joined with EOS; the last valFraction (at least one window) held out. Throws
 *  FormatError when the corpus is too small for a training and a validation window. */
TokenSplit tokeniseCorpus(const std::filesystem::path& corpus, const CorpusOptions& options,
                          const Tokenizer& tokenizer, int64_t seqLen, double valFraction,
                          JobContext& job);

/** `rows` windows of seqLen + 1 tokens [rows, seqLen + 1] int64; window r starts at
 *  SplitMix64(seed, step, firstRow + r) — a pure function of the position in the run. */
torch::Tensor trainingWindows(const std::vector<int32_t>& tokens, int64_t seqLen, uint64_t seed,
                              int64_t step, int64_t firstRow, int64_t rows);

/** Held-out windows firstWindow .. firstWindow + rows − 1: [rows, width] int64, window w
 *  starting at token w·stride (stride = width: disjoint; width − 1: sharing one token). */
torch::Tensor heldOutWindows(const std::vector<int32_t>& tokens, int64_t firstWindow, int64_t rows,
                             int64_t width, int64_t stride);

/** Mean loss over non-overlapping windows of the held-out tokens (at most maxWindows). */
double validationLoss(TrainableLlamaImpl& model, const std::vector<int32_t>& tokens, int64_t seqLen,
                      int64_t batch, int64_t maxWindows, const torch::Device& device);

/** training.json and README.md of the exported folder, from run.json's facts and metrics.jsonl. */
void writePretrainDescription(const std::filesystem::path& runFolder, const ResolvedConfig& config,
                              const std::map<std::string, std::string>& facts,
                              const std::string& tokenizerKind);

}  // namespace strata
