#pragma once
// Internals of the GGUF tokenizer conversion (gguf_tokenizer.h), shared by its three sources:
// gguf_tokenizer.cpp (metadata, added tokens, post-processor, the files),
// gguf_tokenizer_models.cpp (one backend per tokenizer.ggml.model, as transformers' builders
// make it) and gguf_tokenizer_merges.cpp (merges derived from a vocabulary). Not a public header.

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace strata::io::gguf_tokenizer {

using Json = nlohmann::ordered_json;  // keeps the key order transformers writes

/** llama.cpp's token types (tokenizer.ggml.token_type) that transformers acts on. */
inline constexpr int64_t kControlToken = 3;
inline constexpr int64_t kUserDefinedToken = 4;

/** The tokenizer.ggml.* metadata transformers reads (get_gguf_tokenizer), already checked:
 *  the arrays that are present have one entry per token, the ids are in range. */
struct Metadata {
  std::filesystem::path file;
  std::string architecture;  ///< general.architecture
  std::string model;         ///< tokenizer.ggml.model
  std::string pre;           ///< tokenizer.ggml.pre; empty when absent
  std::vector<std::string> tokens;
  std::vector<int64_t> tokenTypes;  ///< empty when absent
  std::vector<double> scores;       ///< empty when absent
  std::optional<std::vector<std::string>> merges;
  std::optional<int32_t> bosId, eosId, unkId, padId;
  std::optional<bool> addBos, addEos;
  std::optional<std::string> chatTemplate;
};

/** A Python dict {token: id} filled in id order: a repeated token keeps its last id. */
using TokenIds = std::unordered_map<std::string, int32_t>;
TokenIds indexTokens(const std::vector<std::string>& tokens);

using Merge = std::pair<std::string, std::string>;

/** What the tokenizer class transformers picks for the file holds before the file's special
 *  tokens are added: its BPE model and its normalizer, pre-tokenizer and decoder. */
struct Backend {
  TokenIds vocab;             ///< the BPE vocabulary, spelled as the model stores tokens
  std::vector<Merge> merges;  ///< by rank
  Json model;                 ///< the "model" section's options (vocab and merges go in last)
  Json normalizer;
  Json preTokenizer;
  Json decoder;
  /** The class's own default special tokens in transformers' order (bos, eos, unk, pad, mask),
   *  which its constructor adds as special tokens: GPT2Tokenizer's "<|endoftext|>",
   *  LlamaTokenizer's "<s>", "</s>", "<unk>", GemmaTokenizer's "<bos>", ... */
  std::vector<std::string> classSpecialTokens;
  /** Byte-level: a CONTROL token spelled outside the byte alphabet is not added (transformers
   *  takes it for a llama.cpp mislabel). */
  bool byteLevel = false;
  /** A mask token the model's own tokenizer class names ("<mask>" for Gemma), if any. */
  std::optional<std::string> maskToken;
};

/** The backend for metadata.model ("gpt2", "llama", "gemma4"). Throws FormatError for an
 *  unsupported model or merges that do not fit the vocabulary. */
Backend buildBackend(const Metadata& metadata);

/**
 * transformers' generate_merges(vocab, vocab_scores) with vocab_scores given: for each token of
 * `scored` in order, every split into two parts (at code points) that are both in `vocab`,
 * ordered by (left id, right id); then all of them stably sorted by (score, left length, right
 * length), largest first. `scored` is a Python dict: each token once, in first-seen order.
 */
std::vector<Merge> mergesFromScores(const TokenIds& vocab,
                                    const std::vector<std::pair<std::string, double>>& scored);

/** The items of the Python dict {keys[i]: values[i]}: first-seen order, last value. */
std::vector<std::pair<std::string, double>> pythonDict(const std::vector<std::string>& keys,
                                                       const std::vector<double>& values);

/** Python's str.isspace() for one code point (Unicode White_Space minus U+180E, plus the
 *  four information separators U+001C..U+001F). */
bool isPythonSpace(int32_t cp);

/** Number of code points of well-formed UTF-8 (Python's len()). */
size_t codePointCount(std::string_view text);

}  // namespace strata::io::gguf_tokenizer
