#pragma once
// Tokenised sampling for capture: which token positions of a corpus get their hidden states
// stored. Documents are tokenised and cut into fixed-length sequences; a seeded, portable
// shuffle picks sequences until exactly `tokenBudget` positions are kept. The result is the
// batch to run through the model and the activation store's TokenTable, row for row.
//
// Cutting (per document, ids from Tokenizer::encode(text) without special tokens):
//   each sequence is [BOS] (when addBos) + the next T − bos document tokens, T = sequenceLength;
//   the last, shorter piece of a document is right-padded (ShortPieces::Pad, the default:
//   short paragraphs would otherwise never be sampled) or dropped (ShortPieces::Drop).
//   Right padding is safe for the causal backbones we capture: a real token never attends
//   to a later (padding) position, so its hidden state is the unpadded one.
// Rows: positions p in [skipFirstPositions, length) of a sequence (position 0 is an attention
//   sink by default). A row's causal prefix is its sequence's ids 0..p (the BOS included).
// Distinct prefixes (distinctPrefixes, the default): under causal attention a row's hidden
//   state is a function of its causal prefix alone, so two rows with the same prefix are the
//   same point in every layer (zero-distance neighbours for m_curv, a duplicated sample for
//   every proxy). Pieces cut at fixed boundaries repeat their first tokens whenever documents
//   start alike (code paragraphs opening with "    def ", a verbatim duplicated document, and
//   with skipFirstPositions = 0 the lone BOS of every sequence). So a row is a candidate only
//   when its prefix occurred at no earlier candidate row in corpus order (document, then
//   position): the first occurrence is kept, later ones are dropped before the budget is
//   filled. Since a repeated prefix repeats all its shorter prefixes, the dropped rows of a
//   sequence are always its first ones: sequence s stores positions [firstStored[s], length)
//   (firstStored ≥ skipFirstPositions) and a sequence left with no row is no candidate.
//   Prefixes are compared by a 64-bit rolling hash (a bijective mixer chained over the ids):
//   two different prefixes of the corpus share a hash, and the later row is wrongly dropped,
//   with probability about n²/2⁶⁵ for n candidate rows (3·10⁻⁶ for 10⁷ rows).
// Selection (portable, the same on every standard library): a partial Fisher–Yates shuffle
//   of the candidate sequences (in corpus order), step i swapping slot i with slot
//   i + portableUniformBelow(rng, C − i), rng = std::mt19937_64(seed); sequences are taken
//   in that order until the kept positions reach the budget, the last one cut short (at its
//   end) to hit it exactly. The chosen sequences are then stored in corpus order (document,
//   start).
//
// Memory: the corpus is streamed twice — once to count tokens per document (one candidate
// record of 16 bytes per sequence is kept), once to re-tokenise only the chosen documents.
// Distinct prefixes add one 64-bit hash per distinct candidate row (about one per corpus
// token) in an open-addressing table at most 3/4 full: 10.7 to 21.3 bytes per corpus token
// (×1.5 for the moment the table doubles) — 3 to 5 MB for WikiText-2's validation split
// (250k GPT-2 tokens), 1.3 to 2.6 GB for WikiText-103's 120M. No exact scheme needs less: to
// know whether a new prefix occurred before, the table must hold every earlier one (it is the
// trie of the corpus's sequences), and no prefix can be forgotten, since a later document may
// repeat any earlier one verbatim. For a corpus too large for that, maxDocuments caps the
// documents read (and so the table), or distinctPrefixes = false turns the check off (no
// table at all).

#include <cstdint>
#include <filesystem>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "io/corpus/corpus.h"
#include "io/store/activation_store.h"

namespace strata {

class JobContext;
namespace tokenizer {
class Tokenizer;
}  // namespace tokenizer

}  // namespace strata

namespace strata::io {

/** What happens to the last piece of a document when it is shorter than a sequence. */
enum class ShortPieces { Pad, Drop };

/** How capture samples tokens. Defaults follow the geometry specification (DESIGN.md). */
struct TokenSamplerConfig {
  int64_t sequenceLength = 128;    ///< T, BOS included
  int64_t tokenBudget = 8192;      ///< N: rows (token positions) stored, exactly
  int64_t skipFirstPositions = 1;  ///< positions 0..skip−1 of each sequence are not stored
  /** unset: the tokenizer's template decides (tokenizer/bos_convention.h); capture sets it
   *  from the model folder's convention first. */
  std::optional<bool> addBos;
  uint64_t seed = 0;
  int64_t maxDocuments = 0;  ///< only the first documents of the corpus; 0 = all
  ShortPieces shortPieces = ShortPieces::Pad;
  /** Drop every row whose causal prefix an earlier row already had (see the file comment);
   *  false stores every position after the skipped ones, duplicates included. */
  bool distinctPrefixes = true;
};

/**
 * The sampled batch. Sequence s is ids[s*T, (s+1)*T): `lengths[s]` real tokens (BOS
 * included), then padId. Its stored rows are positions [firstStored[s], lengths[s]), so
 * `tokens` lists, for s = 0..S−1 and those positions in order, the token id, the document
 * index (order of CorpusReader::next()) and the token's index in the document's ids
 * (−1 for the BOS, which is not part of the document).
 */
struct TokenSample {
  int64_t sequenceLength = 0;
  int64_t skipFirstPositions = 0;
  bool bos = false;  ///< every sequence starts with the tokenizer's BOS
  int32_t padId = 0;
  std::vector<int32_t> ids;      ///< S × T, row-major
  std::vector<int32_t> lengths;  ///< S
  /** S: the first stored position of each sequence, ≥ skipFirstPositions (greater where its
   *  first rows repeat an earlier row's prefix). */
  std::vector<int32_t> firstStored;
  std::vector<int32_t> sequenceDocument;  ///< S: document of each sequence
  std::vector<int32_t> sequenceStart;     ///< S: document position of its first document token
  TokenTable tokens;                      ///< tokenBudget rows, in storage order
  int64_t documentsRead = 0;              ///< documents tokenised (maxDocuments caps it)
  std::string policy;                     ///< JSON for the store's sampling_policy attribute

  int64_t numSequences() const { return static_cast<int64_t>(lengths.size()); }
  std::span<const int32_t> sequence(int64_t s) const {
    return std::span<const int32_t>(ids).subspan(static_cast<size_t>(s * sequenceLength),
                                                 static_cast<size_t>(sequenceLength));
  }
};

/**
 * Samples token positions of a corpus for capture. Holds a reference to the tokenizer, which
 * must outlive it; sample() is const and may run on any thread (one job's, typically).
 */
class TokenSampler {
 public:
  /** ConfigError for an impossible config (T ≤ skip, budget < 1, ...). */
  TokenSampler(const tokenizer::Tokenizer& tokenizer, TokenSamplerConfig config);

  /** Samples the corpus at `corpus` (read twice with `options`). Reports progress to `job`
   *  and checks its cancellation between documents when given. ConfigError when the corpus
   *  holds fewer candidate rows (distinct ones, with distinctPrefixes) than the budget;
   *  reader errors as CorpusReader raises them. */
  TokenSample sample(const std::filesystem::path& corpus, const CorpusOptions& options = {},
                     JobContext* job = nullptr) const;
  /** The same over documents in memory (document index = index in `documents`). */
  TokenSample sample(std::span<const CorpusDocument> documents, JobContext* job = nullptr) const;

  const TokenSamplerConfig& config() const { return m_config; }
  bool addsBos() const { return m_bosId.has_value(); }

 private:
  struct Source;
  TokenSample run(const Source& source, JobContext* job) const;

  const tokenizer::Tokenizer& m_tokenizer;
  TokenSamplerConfig m_config;
  std::optional<int32_t> m_bosId;  // set when sequences start with BOS
};

/** A uniform integer in [0, bound) from `rng`, bound ≥ 1, by rejection sampling of whole
 *  64-bit outputs: portable, unlike std::uniform_int_distribution. */
uint64_t portableUniformBelow(std::mt19937_64& rng, uint64_t bound);

}  // namespace strata::io
