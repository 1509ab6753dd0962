#pragma once
// The BPE model of HF tokenizers (models/bpe/model.rs): one pre-token in, token ids out.
// Characters of the pre-token become symbols (a character missing from the vocabulary falls
// back to <0xNN> byte tokens or to the unknown token), then the merge rules combine them.

#include <array>
#include <cstdint>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenizer/bpe_merge.h"
#include "tokenizer/vocabulary.h"

namespace strata::tokenizer {

/** The knobs of HF's BPE model that change how a pre-token is encoded. */
struct BpeOptions {
  /** Token for characters that are neither in the vocabulary nor byte-fallback-able. Without
   *  one such characters are dropped, as HF does. */
  std::optional<std::string> unkToken;
  /** Consecutive unknown characters become one unknown token. */
  bool fuseUnk = false;
  /** A character missing from the vocabulary becomes its UTF-8 bytes as <0xNN> tokens
   *  (SentencePiece byte fallback, Llama-2 / Mistral). */
  bool byteFallback = false;
  /** A pre-token found whole in the vocabulary is emitted as is (Llama-3; tiktoken semantics). */
  bool ignoreMerges = false;
  /** Prepended to every symbol but the first of a word / appended to the last (rare in
   *  byte-level models; empty = none). */
  std::string continuingSubwordPrefix;
  std::string endOfWordSuffix;
};

/** A BPE vocabulary with its merge rules. Immutable after construction except for an
 *  internal cache of encoded pre-tokens, which is guarded: encode() may run on many threads. */
class BpeModel {
 public:
  /** Throws std::invalid_argument when the unknown token is not in the vocabulary. */
  BpeModel(Vocabulary vocabulary, PairMergeTable merges, BpeOptions options);

  /** Appends the ids of one pre-token to `out`. */
  void encode(std::string_view piece, std::vector<int32_t>& out) const;

  const Vocabulary& vocabulary() const { return m_vocabulary; }
  const BpeOptions& options() const { return m_options; }
  std::optional<int32_t> unkId() const { return m_unkId; }

 private:
  void encodeUncached(std::string_view piece, std::vector<int32_t>& out) const;
  void initialSymbols(std::string_view piece, std::vector<int32_t>& symbols) const;
  int32_t lookUpSymbol(std::string_view piece, size_t pos, size_t length) const;

  Vocabulary m_vocabulary;
  PairMergeTable m_merges;
  BpeOptions m_options;
  std::optional<int32_t> m_unkId;
  std::array<int32_t, 256> m_byteTokens{};  // id of "<0xNN>" per byte, -1 when absent
  std::vector<int32_t> m_smallCodepoints;   // id of each single code point below U+0800

  // Cache of pre-token → ids (HF keeps one too); most words repeat, so most pieces hit it.
  static constexpr size_t kCacheCapacity = 1 << 17;
  static constexpr size_t kMaxCachedLength = 256;
  mutable std::shared_mutex m_cacheMutex;
  mutable std::unordered_map<std::string, std::vector<int32_t>, StringHash, std::equal_to<>>
      m_cache;
};

/** Adds the rule "left right" with `rank` to `table` (HF: the merged token is left + right
 *  without right's continuing-subword prefix). Returns the first of left, right and merged that
 *  is missing from the vocabulary, or std::nullopt when the rule was added. */
std::optional<std::string> addMergeRule(PairMergeTable& table, const Vocabulary& vocabulary,
                                        std::string_view left, std::string_view right, int32_t rank,
                                        std::string_view continuingSubwordPrefix = {});

}  // namespace strata::tokenizer
