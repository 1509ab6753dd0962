#pragma once
// The HF tokenizers pipeline with a BPE model: added tokens split out → normalizer →
// pre-tokenizer → BPE per piece → optional template; decoding runs the decoder chain.
// tokenizer.json, vocab.json + merges.txt and tiktoken files all load into this one class.

#include <memory>
#include <string>
#include <vector>

#include "tokenizer/added_vocabulary.h"
#include "tokenizer/bpe_model.h"
#include "tokenizer/decoder.h"
#include "tokenizer/normalizer.h"
#include "tokenizer/pre_tokenizer.h"
#include "tokenizer/tokenizer.h"

namespace strata::tokenizer {

/** Everything a BpeTokenizer is made of; loaders fill it in. */
struct BpeTokenizerParts {
  std::string kind;
  std::unique_ptr<Normalizer> normalizer;      // null: none
  std::unique_ptr<PreTokenizer> preTokenizer;  // null: each text segment is one piece
  std::unique_ptr<BpeModel> model;             // required
  std::unique_ptr<Decoder> decoder;            // null: tokens joined by " " (HF's default)
  AddedVocabulary addedTokens;
  /** What encode(text, addSpecialTokens = true) puts around the ids (HF post_processor). */
  std::vector<int32_t> templatePrefix;
  std::vector<int32_t> templateSuffix;
  SpecialTokenIds special;
};

/** The id of `token` among the added tokens, else in the model's vocabulary. */
std::optional<int32_t> findToken(const BpeTokenizerParts& parts, std::string_view token);

/** A BPE tokenizer run as HF tokenizers runs it. Thread-safe for concurrent encode/decode. */
class BpeTokenizer : public Tokenizer {
 public:
  explicit BpeTokenizer(BpeTokenizerParts parts);

  std::vector<int32_t> encode(std::string_view text, bool addSpecialTokens = false) const override;
  std::string decode(std::span<const int32_t> ids, bool skipSpecialTokens = false) const override;
  int64_t vocabSize() const override;
  std::optional<int32_t> tokenId(std::string_view token) const override;
  std::string tokenText(int32_t id) const override;
  bool isSpecial(int32_t id) const override;
  std::string kind() const override { return m_parts.kind; }

  const BpeModel& model() const { return *m_parts.model; }
  const AddedVocabulary& addedTokens() const { return m_parts.addedTokens; }

 private:
  void encodeText(const InputSegment& segment, std::vector<int32_t>& ids) const;

  BpeTokenizerParts m_parts;
};

}  // namespace strata::tokenizer
