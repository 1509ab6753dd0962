#pragma once
// Added tokens (HF tokenizer.json "added_tokens"; tiktoken / Llama-3 special tokens): they are
// found in the raw text and split out before normalization and pre-tokenization, so that
// "<|eot_id|>" becomes one id instead of being spelled out by BPE (HF added_vocabulary.rs).

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenizer/vocabulary.h"

namespace strata::tokenizer {

/** One added token, with HF's matching flags. */
struct AddedToken {
  std::string content;
  int32_t id = 0;
  /** Special tokens (BOS, EOS, chat markers) are skipped by decode(skipSpecialTokens). */
  bool special = false;
  /** Only matches when not inside a word (no word character right before or after). */
  bool singleWord = false;
  /** The match also swallows the whitespace on its left / right. */
  bool lstrip = false;
  bool rstrip = false;
  /** Matched in the normalized text rather than the raw text. */
  bool normalized = false;
};

/** A stretch of input: text still to be tokenized, or an added token already identified. */
struct InputSegment {
  std::string text;
  /** The added token's id, or -1 for a text segment. */
  int32_t tokenId = -1;
  /** The segment begins at byte 0 of the caller's text. */
  bool atInputStart = false;
};

/** The added tokens of a tokenizer. Immutable once built; safe to share between threads. */
class AddedVocabulary {
 public:
  /** Adds a token. Returns false (changing nothing) when its content or id is already added. */
  bool add(AddedToken token);
  const AddedToken* byId(int32_t id) const;
  const AddedToken* byContent(std::string_view content) const;
  const std::vector<AddedToken>& tokens() const { return m_tokens; }
  /** One more than the largest added id (0 when none). */
  int64_t idLimit() const { return m_idLimit; }

  /** Splits `text` at the added tokens whose `normalized` flag equals `normalizedTokens`,
   *  leftmost match first and the longest token at that position (HF uses Aho-Corasick with
   *  LeftmostLongest). Appends the segments, empty text segments omitted, to `out`. */
  void split(std::string_view text, bool normalizedTokens, bool atInputStart,
             std::vector<InputSegment>& out) const;

 private:
  std::vector<AddedToken> m_tokens;
  std::unordered_map<int32_t, size_t> m_indexById;
  std::unordered_map<std::string, size_t, StringHash, std::equal_to<>> m_indexByContent;
  // Per pass (raw, normalized) and first byte: the lengths of the tokens, longest first.
  std::array<std::array<std::vector<size_t>, 256>, 2> m_lengths;
  std::array<bool, 2> m_passUsed{};
  int64_t m_idLimit = 0;
};

}  // namespace strata::tokenizer
