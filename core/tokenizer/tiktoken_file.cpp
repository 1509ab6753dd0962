// tiktoken rank files ("<base64 token> <rank>" per line; tiktoken load_tiktoken_bpe), as Meta
// ships Llama-3's tokenizer.model. Loaded into the same pipeline as HF's converted Llama-3
// tokenizer.json: Llama-3 regex split → byte-level characters → BPE with ignore_merges.
//
// tiktoken merges the adjacent pair whose concatenated bytes have the lowest rank. That is a
// pair table: for each token, every split into two tokens (left, right) maps to the token's
// rank — exactly how HF's converter derives merges from a tiktoken file.

#include <fstream>
#include <sstream>

#include "common/error.h"
#include "common/text_file.h"
#include "tokenizer/bpe_tokenizer.h"
#include "tokenizer/byte_level.h"
#include "tokenizer/special_tokens_config.h"
#include "tokenizer/utf8_text.h"

namespace strata::tokenizer {

namespace {

constexpr size_t kLlama3BaseTokens = 128000;
constexpr int kLlama3ReservedSpecials = 256;

// Meta's llama3 tokenizer.py: ten named specials, then reserved ones up to 256 in all.
std::vector<std::string> llama3SpecialTokens() {
  std::vector<std::string> names = {"<|begin_of_text|>",
                                    "<|end_of_text|>",
                                    "<|reserved_special_token_0|>",
                                    "<|reserved_special_token_1|>",
                                    "<|reserved_special_token_2|>",
                                    "<|reserved_special_token_3|>",
                                    "<|start_header_id|>",
                                    "<|end_header_id|>",
                                    "<|reserved_special_token_4|>",
                                    "<|eot_id|>"};
  for (int i = 5; i < kLlama3ReservedSpecials - 5; ++i)
    names.push_back("<|reserved_special_token_" + std::to_string(i) + "|>");
  return names;
}

int base64Value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

// Standard base64 with optional '=' padding; std::nullopt on a bad character or length.
std::optional<std::string> decodeBase64(std::string_view text) {
  while (!text.empty() && text.back() == '=') text.remove_suffix(1);
  if (text.size() % 4 == 1) return std::nullopt;
  std::string out;
  out.reserve(text.size() * 3 / 4);
  uint32_t buffer = 0;
  int bits = 0;
  for (const char c : text) {
    const int value = base64Value(c);
    if (value < 0) return std::nullopt;
    buffer = (buffer << 6) | static_cast<uint32_t>(value);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buffer >> bits) & 0xFF);
    }
  }
  return out;
}

}  // namespace

std::unique_ptr<Tokenizer> loadTiktoken(const std::filesystem::path& file) {
  const std::string content = readWholeFile(file);
  std::vector<std::string> tokens;  // raw bytes, indexed by rank
  tokens.reserve(content.size() / 16);
  size_t lineNumber = 0;
  for (size_t pos = 0; pos < content.size();) {
    size_t end = content.find('\n', pos);
    if (end == std::string::npos) end = content.size();
    std::string_view line(content.data() + pos, end - pos);
    pos = end + 1;
    ++lineNumber;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    const std::string where = "line " + std::to_string(lineNumber);
    const size_t space = line.find(' ');
    const auto bytes = decodeBase64(line.substr(0, space));
    if (space == std::string_view::npos || !bytes || bytes->empty())
      throw FormatError(file, "expected \"<base64 token> <rank>\"", where, "entry");
    size_t rank = 0;
    const std::string_view rankText = line.substr(space + 1);
    for (const char c : rankText) {
      if (c < '0' || c > '9' || rank > INT32_MAX / 10)
        throw FormatError(file, "bad rank '" + std::string(rankText) + "'", where, "entry");
      rank = rank * 10 + static_cast<size_t>(c - '0');
    }
    if (rankText.empty() || rank != tokens.size())
      throw FormatError(file,
                        "ranks must count up from 0 without gaps, found " + std::string(rankText),
                        where, "entry");
    tokens.push_back(std::move(*bytes));
  }

  // The vocabulary holds the byte-level spelling, as HF's converted Llama-3 tokenizer.json.
  Vocabulary vocabulary;
  vocabulary.reserve(tokens.size());
  for (size_t rank = 0; rank < tokens.size(); ++rank)
    if (!vocabulary.add(byte_level::encode(tokens[rank]), static_cast<int32_t>(rank)))
      throw FormatError(file, "token listed twice", "rank " + std::to_string(rank), "entry");
  for (int b = 0; b < 256; ++b)
    if (!vocabulary.find(byte_level::encode(std::string(1, static_cast<char>(b)))))
      throw FormatError(file,
                        "every single byte needs a rank; byte " + std::to_string(b) + " has none");

  // Cuts between bytes are cuts between characters of the byte-level spelling.
  PairMergeTable merges;
  merges.reserve(tokens.size() * 3);
  for (size_t rank = 0; rank < tokens.size(); ++rank) {
    const auto id = static_cast<int32_t>(rank);
    const std::string_view token = *vocabulary.text(id);
    for (size_t cut = utf8::sequenceLength(token, 0); cut < token.size();
         cut += utf8::sequenceLength(token, cut)) {
      const auto left = vocabulary.find(token.substr(0, cut));
      if (!left) continue;
      if (const auto right = vocabulary.find(token.substr(cut)))
        merges.insertIfAbsent(*left, *right, {id, id});
    }
  }

  BpeTokenizerParts parts;
  parts.kind = "tiktoken";
  std::vector<std::unique_ptr<PreTokenizer>> steps;
  steps.push_back(std::make_unique<SplitPreTokenizer>(
      SplitPattern::regex(std::string(kLlama3Pattern)), SplitBehavior::Isolated, false));
  steps.push_back(std::make_unique<ByteLevelPreTokenizer>(false, false));
  parts.preTokenizer = std::make_unique<SequencePreTokenizer>(std::move(steps));
  parts.decoder = std::make_unique<ByteLevelDecoder>();
  SpecialTokenIds fallback;
  if (tokens.size() == kLlama3BaseTokens) {
    // Llama-3: the specials follow the ranks; encode(…, true) prepends <|begin_of_text|>, as
    // Meta's Tokenizer.encode(bos=True) and HF's template do.
    const std::vector<std::string> specials = llama3SpecialTokens();
    for (size_t i = 0; i < specials.size(); ++i)
      parts.addedTokens.add({specials[i], static_cast<int32_t>(kLlama3BaseTokens + i), true});
    fallback.bos = static_cast<int32_t>(kLlama3BaseTokens);
    fallback.eos = static_cast<int32_t>(kLlama3BaseTokens + 1);
    parts.templatePrefix = {*fallback.bos};
    parts.kind = "tiktoken (Llama-3)";
  }
  BpeOptions options;
  options.ignoreMerges = true;
  parts.model = std::make_unique<BpeModel>(std::move(vocabulary), std::move(merges), options);
  parts.special = resolveSpecialTokens(
      readTokenizerConfig(file.parent_path()),
      [&parts](std::string_view name) { return findToken(parts, name); }, fallback);
  return std::make_unique<BpeTokenizer>(std::move(parts));
}

}  // namespace strata::tokenizer
