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
// Kept rows: positions p in [skipFirstPositions, length) of every chosen sequence (position
//   0 is an attention sink by default). A sequence whose piece keeps nothing is no candidate.
// Selection (portable, the same on every standard library): a partial Fisher–Yates shuffle
//   of the candidate sequences (in corpus order), step i swapping slot i with slot
//   i + portableUniformBelow(rng, C − i), rng = std::mt19937_64(seed); sequences are taken
//   in that order until the kept positions reach the budget, the last one cut short to hit
//   it exactly. The chosen sequences are then stored in corpus order (document, start).
//
// Memory: the corpus is streamed twice — once to count tokens per document (one candidate
// record per sequence is kept), once to re-tokenise only the chosen documents.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "io/activation_store.h"
#include "io/corpus.h"

namespace strata {

class JobContext;
class Tokenizer;

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
};

/**
 * The sampled batch. Sequence s is ids[s*T, (s+1)*T): `lengths[s]` real tokens (BOS
 * included), then padId. Its stored rows are positions [skipFirstPositions, lengths[s]), so
 * `tokens` lists, for s = 0..S−1 and those positions in order, the token id, the document
 * index (order of CorpusReader::next()) and the token's index in the document's ids
 * (−1 for the BOS, which is not part of the document).
 */
struct TokenSample {
  int64_t sequenceLength = 0;
  int64_t skipFirstPositions = 0;
  bool bos = false;  ///< every sequence starts with the tokenizer's BOS
  int32_t padId = 0;
  std::vector<int32_t> ids;               ///< S × T, row-major
  std::vector<int32_t> lengths;           ///< S
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
  TokenSampler(const Tokenizer& tokenizer, TokenSamplerConfig config);

  /** Samples the corpus at `corpus` (read twice with `options`). Reports progress to `job`
   *  and checks its cancellation between documents when given. ConfigError when the corpus
   *  holds fewer positions than the budget; reader errors as CorpusReader raises them. */
  TokenSample sample(const std::filesystem::path& corpus, const CorpusOptions& options = {},
                     JobContext* job = nullptr) const;
  /** The same over documents in memory (document index = index in `documents`). */
  TokenSample sample(std::span<const CorpusDocument> documents, JobContext* job = nullptr) const;

  const TokenSamplerConfig& config() const { return m_config; }
  bool addsBos() const { return m_bosId.has_value(); }

 private:
  struct Source;
  TokenSample run(const Source& source, JobContext* job) const;

  const Tokenizer& m_tokenizer;
  TokenSamplerConfig m_config;
  std::optional<int32_t> m_bosId;  // set when sequences start with BOS
};

/** A uniform integer in [0, bound) from `rng`, bound ≥ 1, by rejection sampling of whole
 *  64-bit outputs: portable, unlike std::uniform_int_distribution. */
uint64_t portableUniformBelow(std::mt19937_64& rng, uint64_t bound);

}  // namespace strata
