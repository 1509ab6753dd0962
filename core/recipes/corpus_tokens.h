#pragma once
// The data every corpus-trained recipe shares (pretrain, bridge, dcdm, repr_align): its
// settings, the run's tokenizer, the corpus read into a training and a held-out token stream,
// the seeded draw of training windows, and the facts run.json records about the data. No torch
// here: the recipes cut their tensors from these streams.

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/config_schema.h"
#include "io/corpus/corpus.h"

namespace strata {

class JobContext;
namespace tokenizer {
class Tokenizer;
}  // namespace tokenizer

}  // namespace strata

namespace strata::recipes {

struct TokenSplit {
  std::vector<int32_t> train, val;
};

/** The corpus settings: corpus (required unless `corpusRequired` is false), corpus_format,
 *  split, jsonl_field. */
std::vector<engine::SettingSpec> corpusSettings(bool corpusRequired = true);
/** tokenizer: byte, or a tokenizer folder/file copied into the run (recipes that train a
 *  vocabulary of their own). */
engine::SettingSpec tokenizerSetting();
/** val_fraction: the held-out tail of the token stream. */
engine::SettingSpec valFractionSetting();

/** corpus_format, split and jsonl_field of a run's config (ConfigError when unknown). */
io::CorpusOptions corpusOptionsOf(const engine::ResolvedConfig& config);

/** The run's tokenizer: rank 0 writes `source`'s files (byte or a tokenizer folder/file) into
 *  the run folder, where they belong to the exported model; other ranks read a private copy so
 *  they never race it. */
std::unique_ptr<tokenizer::Tokenizer> setUpRunTokenizer(const std::string& source,
                                                        const std::filesystem::path& runFolder,
                                                        int rank);

/** Documents joined with EOS; the last valFraction (at least one window of `window` + 1
 *  tokens) held out. Throws FormatError when the corpus is too small for a training and a
 *  validation window. */
TokenSplit tokeniseCorpus(const std::filesystem::path& corpus, const io::CorpusOptions& options,
                          const tokenizer::Tokenizer& tokenizer, int64_t window, double valFraction,
                          JobContext& job);

/** A run's corpus, tokenised, with its hash. */
struct CorpusTokens {
  std::string corpusHash;
  TokenSplit tokens;
  /** corpus_hash, train_tokens and val_tokens, for run.json's description. */
  std::map<std::string, std::string> facts() const;
};

/** The config's corpus (corpus, corpus_format, split, jsonl_field, val_fraction) hashed and
 *  tokenised with `tokenizer` into windows of `window` + 1 tokens (tokeniseCorpus). */
CorpusTokens readCorpusTokens(const engine::ResolvedConfig& config,
                              const tokenizer::Tokenizer& tokenizer, int64_t window,
                              JobContext& job);

/** A draw in [0, n) that is a pure function of (seed, step, row): SplitMix64 (Steele, Lea &
 *  Flood 2014), portable, so the data order is the same on every platform and after a resume. */
uint64_t seededDraw(uint64_t seed, int64_t step, int64_t row, uint64_t n);

}  // namespace strata::recipes
