#pragma once
// The tokenizer interface every backbone and corpus reader uses, and the loaders that build
// one from a model folder. Supported: HF tokenizer.json with a BPE model (byte-level GPT-2 /
// Llama-3 / Qwen / NeoX, SentencePiece-style Llama-2 / Mistral with byte fallback), GPT-2's
// vocab.json + merges.txt, tiktoken rank files (Llama-3), SentencePiece tokenizer.model files
// (sentencepiece_tokenizer.h) and llama2.c's tokenizer.bin. No LibTorch: ids are int32 vectors.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace strata::tokenizer {

/** Ids of the tokens a model treats specially; each absent when the tokenizer has none. */
struct SpecialTokenIds {
  std::optional<int32_t> bos;
  std::optional<int32_t> eos;
  std::optional<int32_t> pad;
  std::optional<int32_t> unk;
  std::optional<int32_t> mask;
};

/** Text ↔ token ids. Implementations are immutable after loading; encode() and decode() are
 *  const and may be called from several threads at once (internal caches are guarded). */
class Tokenizer {
 public:
  virtual ~Tokenizer() = default;

  /** The ids of `text` (arbitrary bytes; UTF-8 expected). With `addSpecialTokens` the model's
   *  template is applied — e.g. Llama-3's <|begin_of_text|>, llama2.c's BOS; GPT-2 adds none,
   *  as in HF. Added/special tokens written in the text are recognised either way, as HF
   *  does (Meta's tiktoken wrapper would spell them out unless allowed explicitly). */
  virtual std::vector<int32_t> encode(std::string_view text,
                                      bool addSpecialTokens = false) const = 0;

  /** The text of `ids`. With `skipSpecialTokens`, special tokens are left out. Bytes that do
   *  not form valid UTF-8 (a multi-byte character cut between ids) are returned as they are,
   *  as tiktoken's decode_bytes and llama2.c do, where HF would put U+FFFD; so decoding ids one
   *  by one and concatenating equals decoding them together. Throws std::out_of_range for an
   *  id outside the vocabulary. */
  virtual std::string decode(std::span<const int32_t> ids,
                             bool skipSpecialTokens = false) const = 0;

  /** One more than the largest id, added tokens included (Llama-3: 128256). */
  virtual int64_t vocabSize() const = 0;

  /** The id of a token given in the vocabulary's own spelling ("Ġthe", "▁the", "<|eot_id|>"). */
  virtual std::optional<int32_t> tokenId(std::string_view token) const = 0;

  /** The vocabulary's spelling of `id`. Throws std::out_of_range for an unknown id. */
  virtual std::string tokenText(int32_t id) const = 0;

  /** True for special tokens (those decode(..., true) skips). */
  virtual bool isSpecial(int32_t id) const = 0;

  /** The format and flavour, e.g. "tokenizer.json (BPE, byte-level)", "vocab.json +
   *  merges.txt (BPE, byte-level)", "tiktoken (Llama-3)", "llama2.c tokenizer.bin". */
  virtual std::string kind() const = 0;

  const SpecialTokenIds& specialIds() const { return m_special; }
  std::optional<int32_t> bosId() const { return m_special.bos; }
  std::optional<int32_t> eosId() const { return m_special.eos; }
  std::optional<int32_t> padId() const { return m_special.pad; }
  std::optional<int32_t> maskId() const { return m_special.mask; }

 protected:
  SpecialTokenIds m_special;
};

/** Loads the tokenizer of a model folder, trying in order: tokenizer.json; vocab.json +
 *  merges.txt; tokenizer.model (tiktoken ranks, recognised by content, else SentencePiece);
 *  tokenizer.bin (llama2.c). `path` may also name one of those files directly. Throws IoError when
 * the path cannot be read and FormatError when no supported tokenizer is there or a file is
 * malformed. */
std::unique_ptr<Tokenizer> loadTokenizer(const std::filesystem::path& path);

/** Whether `file` (a tokenizer.model) is a tiktoken rank file rather than SentencePiece. */
bool isTiktokenRankFile(const std::filesystem::path& file);

/** HF tokenizer.json; tokenizer_config.json / special_tokens_map.json next to it, when present,
 *  name the BOS/EOS/PAD/UNK/MASK tokens. */
std::unique_ptr<Tokenizer> loadTokenizerJson(const std::filesystem::path& file);

/** GPT-2 style vocab.json + merges.txt (byte-level, GPT-2 regex, <|endoftext|> special). */
std::unique_ptr<Tokenizer> loadVocabAndMerges(const std::filesystem::path& vocabJson,
                                              const std::filesystem::path& mergesTxt);

/** A tiktoken rank file ("base64 rank" per line) with the Llama-3 regex; a 128,000-rank file
 *  (Llama-3) also gets Meta's 256 special tokens from id 128000 on. */
std::unique_ptr<Tokenizer> loadTiktoken(const std::filesystem::path& file);

/** llama2.c's tokenizer.bin (int32 max_token_length; per token float score, int32 length,
 *  bytes), encoding and decoding as llama2.c's run.c does; decode also drops the leading space
 *  of the first piece when no BOS precedes it, as SentencePiece does, so that
 *  decode(encode(s)) == s. */
std::unique_ptr<Tokenizer> loadLlama2cTokenizer(const std::filesystem::path& file);

}  // namespace strata::tokenizer
