// The data every corpus-trained recipe shares (see corpus_tokens.h).

#include "recipes/corpus_tokens.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "common/error.h"
#include "common/job.h"
#include "common/split_mix.h"
#include "io/corpus/corpus_hash.h"
#include "recipes/pretrain/pretrain_files.h"
#include "tokenizer/tokenizer.h"

namespace strata::recipes {

namespace fs = std::filesystem;

std::vector<engine::SettingSpec> corpusSettings(bool corpusRequired) {
  engine::SettingSpec corpus =
      engine::makeSetting("corpus", engine::SettingType::Path, std::string(),
                          "a text file, a folder of .txt files, or a .jsonl file", "data");
  corpus.required = corpusRequired;
  return {corpus,
          engine::makeChoice("corpus_format", "auto", {"auto", "text", "folder", "jsonl"},
                             "how to read the corpus", "data"),
          engine::makeChoice("split", "auto", {"auto", "paragraphs", "lines", "file", "wikitext"},
                             "how a text file divides into documents", "data"),
          engine::makeSetting("jsonl_field", engine::SettingType::Text, std::string("text"),
                              "the JSONL field holding the text", "data")};
}

engine::SettingSpec tokenizerSetting() {
  return engine::makeSetting(
      "tokenizer", engine::SettingType::Text, std::string("byte"),
      "byte (256 byte symbols + BOS/EOS), or a tokenizer folder/file to copy", "data");
}

engine::SettingSpec valFractionSetting() {
  return engine::makeSetting("val_fraction", engine::SettingType::Real, 0.05,
                             "held-out tail of the token stream", "data", 1e-4, 0.5);
}

uint64_t seededDraw(uint64_t seed, int64_t step, int64_t row, uint64_t n) {
  const uint64_t key = splitMix64(seed) ^ splitMix64(static_cast<uint64_t>(step) * 0x10001ULL +
                                                     static_cast<uint64_t>(row));
  return splitMix64(key) % n;
}

std::unique_ptr<tokenizer::Tokenizer> setUpRunTokenizer(const std::string& source,
                                                        const fs::path& runFolder, int rank) {
  const fs::path folder =
      rank == 0 ? runFolder
                : fs::temp_directory_path() / ("strata-tokenizer-" + std::to_string(::getpid()));
  fs::create_directories(folder);
  writeTokenizerFiles(source, folder);
  std::unique_ptr<tokenizer::Tokenizer> tokenizer = tokenizer::loadTokenizer(folder);
  if (rank != 0) fs::remove_all(folder);
  return tokenizer;
}

io::CorpusOptions corpusOptionsOf(const engine::ResolvedConfig& config) {
  io::CorpusOptions options;
  const auto format = io::parseCorpusFormat(config.text("corpus_format"));
  if (!format) throw ConfigError("run configuration", "corpus_format", "is not a corpus format");
  const auto split = io::parseDocumentSplit(config.text("split"));
  if (!split) throw ConfigError("run configuration", "split", "is not a document split");
  options.format = *format;
  options.split = *split;
  options.jsonlField = config.text("jsonl_field");
  return options;
}

TokenSplit tokeniseCorpus(const fs::path& corpus, const io::CorpusOptions& options,
                          const tokenizer::Tokenizer& tokenizer, int64_t window, double valFraction,
                          JobContext& job) {
  const std::vector<io::CorpusDocument> documents = io::readCorpus(corpus, options, &job);
  const auto eos = tokenizer.eosId();
  if (!eos) throw FormatError(corpus, "the tokenizer has no EOS token to put between documents");
  std::vector<int32_t> all;
  for (size_t i = 0; i < documents.size(); ++i) {
    if (i > 0) all.push_back(*eos);
    const std::vector<int32_t> ids = tokenizer.encode(documents[i].text);
    all.insert(all.end(), ids.begin(), ids.end());
    if (i % 64 == 0) {
      job.checkCancelled();
      job.progress(-1, "tokenising");
    }
  }
  const auto total = static_cast<int64_t>(all.size());
  const int64_t valCount = std::max<int64_t>(
      window + 1, static_cast<int64_t>(std::llround(valFraction * static_cast<double>(total))));
  if (total - valCount < window + 1)
    throw FormatError(corpus, "has " + std::to_string(total) +
                                  " tokens: too few for a training "
                                  "and a validation window of seq_len " +
                                  std::to_string(window) + " + 1");
  TokenSplit split;
  split.train.assign(all.begin(), all.end() - valCount);
  split.val.assign(all.end() - valCount, all.end());
  return split;
}

std::map<std::string, std::string> CorpusTokens::facts() const {
  return {{"corpus_hash", corpusHash},
          {"train_tokens", std::to_string(tokens.train.size())},
          {"val_tokens", std::to_string(tokens.val.size())}};
}

CorpusTokens readCorpusTokens(const engine::ResolvedConfig& config,
                              const tokenizer::Tokenizer& tokenizer, int64_t window,
                              JobContext& job) {
  const fs::path corpus = config.text("corpus");
  const io::CorpusOptions options = corpusOptionsOf(config);
  CorpusTokens result;
  result.corpusHash = corpusHash(corpus, options, &job);
  result.tokens =
      tokeniseCorpus(corpus, options, tokenizer, window, config.real("val_fraction"), job);
  return result;
}

}  // namespace strata::recipes
