// GPT-2's original tokenizer files: vocab.json (token → id) and merges.txt ("#version: 0.2"
// header, then one "left right" merge per line, highest priority first), as read by HF's
// BPE::from_file and GPT2Tokenizer.

#include <fstream>

#include "common/error.h"
#include "tokenizer/bpe_tokenizer.h"
#include "tokenizer/json_fields.h"
#include "tokenizer/special_tokens_config.h"

namespace strata::tokenizer {

namespace {

constexpr std::string_view kEndOfText = "<|endoftext|>";

Vocabulary readVocabJson(const std::filesystem::path& file) {
  const Json root = readJsonFile(file);
  const JsonFields fields(file);
  if (!root.is_object()) throw fields.error("", "expected an object of token → id");
  Vocabulary vocabulary;
  vocabulary.reserve(root.size());
  for (const auto& [token, value] : root.items()) {
    const int64_t id = fields.integerValue(value, token);
    if (id < 0 || id > INT32_MAX || !vocabulary.add(token, static_cast<int32_t>(id)))
      throw FormatError(file,
                        "id " + std::to_string(id) + " is negative, too large or already used",
                        token, "token");
  }
  return vocabulary;
}

PairMergeTable readMergesTxt(const std::filesystem::path& file, const Vocabulary& vocabulary) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw IoError(file, "cannot open: " + lastSystemError());
  PairMergeTable table;
  table.reserve(vocabulary.size());
  std::string line;
  int32_t rank = 0;
  for (size_t lineNumber = 1; std::getline(in, line); ++lineNumber) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.starts_with("#version") || line.empty()) continue;
    const size_t space = line.find(' ');
    const std::string where = "line " + std::to_string(lineNumber);
    if (space == std::string::npos || line.find(' ', space + 1) != std::string::npos)
      throw FormatError(file, "expected \"left right\", found \"" + line + "\"", where, "merge");
    if (const auto missing =
            addMergeRule(table, vocabulary, std::string_view(line).substr(0, space),
                         std::string_view(line).substr(space + 1), rank++))
      throw FormatError(file, "token '" + *missing + "' is not in the vocabulary", where, "merge");
  }
  if (in.bad()) throw IoError(file, "cannot read: " + lastSystemError());
  return table;
}

}  // namespace

std::unique_ptr<Tokenizer> loadVocabAndMerges(const std::filesystem::path& vocabJson,
                                              const std::filesystem::path& mergesTxt) {
  Vocabulary vocabulary = readVocabJson(vocabJson);
  PairMergeTable merges = readMergesTxt(mergesTxt, vocabulary);
  BpeTokenizerParts parts;
  parts.kind = "vocab.json + merges.txt (BPE, byte-level)";
  // GPT2Tokenizer: no prefix space by default, the GPT-2 regex, bytes mapped to characters.
  parts.preTokenizer = std::make_unique<ByteLevelPreTokenizer>(false, true);
  parts.decoder = std::make_unique<ByteLevelDecoder>();

  const TokenizerConfig config = readTokenizerConfig(vocabJson.parent_path());
  for (const AddedToken& token : config.addedTokens) parts.addedTokens.add(token);
  SpecialTokenIds fallback;
  if (const auto endOfText = vocabulary.find(kEndOfText)) {
    // GPT-2's only special token; HF's GPT2Tokenizer uses it as BOS, EOS and UNK.
    parts.addedTokens.add({std::string(kEndOfText), *endOfText, true});
    fallback.bos = fallback.eos = fallback.unk = endOfText;
  }
  parts.model = std::make_unique<BpeModel>(std::move(vocabulary), std::move(merges), BpeOptions{});
  parts.special = resolveSpecialTokens(
      config, [&parts](std::string_view name) { return findToken(parts, name); }, fallback);
  return std::make_unique<BpeTokenizer>(std::move(parts));
}

}  // namespace strata::tokenizer
