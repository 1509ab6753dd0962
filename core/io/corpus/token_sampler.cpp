#include "io/corpus/token_sampler.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/job.h"
#include "tokenizer/bos_convention.h"
#include "tokenizer/tokenizer.h"

namespace strata::io {

namespace {

/** One candidate sequence: `length` document tokens from `start` of document `doc`; it stores
 *  positions [first, bos + length) of its sequence. */
struct Candidate {
  int32_t doc;
  int32_t start;
  int32_t length;
  int32_t first;
};

/** The hash of a causal prefix extended by one token: the murmur3 finaliser (a bijection) over
 *  the parent's hash and the token, so two prefixes that differ only in their last token never
 *  share a hash, and any other two do with probability 2⁻⁶⁴. Portable: integer arithmetic. */
uint64_t extendPrefix(uint64_t parent, int32_t token) {
  uint64_t x =
      parent ^ ((static_cast<uint64_t>(static_cast<uint32_t>(token)) + 1) * 0x9E3779B97F4A7C15ull);
  x ^= x >> 33;
  x *= 0xFF51AFD7ED558CCDull;
  x ^= x >> 33;
  x *= 0xC4CEB9FE1A85EC53ull;
  x ^= x >> 33;
  return x;
}
constexpr uint64_t kEmptyPrefix = 0x6A09E667F3BCC908ull;  // the hash of no tokens

/** The prefixes seen so far, as a set of 64-bit hashes: open addressing with linear probing,
 *  8 bytes a slot, at most 3/4 full (see the header for what that costs). */
class PrefixSet {
 public:
  /** Adds `hash`; true when it was not there yet. */
  bool insert(uint64_t hash) {
    if (hash == 0) {  // 0 marks an empty slot: the one hash that cannot be stored in one
      const bool added = !m_hasZero;
      m_hasZero = true;
      return added;
    }
    if ((m_size + 1) * 4 > m_slots.size() * 3) grow();
    const size_t mask = m_slots.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      if (m_slots[i] == hash) return false;
      if (m_slots[i] == 0) {
        m_slots[i] = hash;
        ++m_size;
        return true;
      }
    }
  }

 private:
  void grow() {
    std::vector<uint64_t> old(std::max<size_t>(1024, m_slots.size() * 2), 0);
    old.swap(m_slots);
    const size_t mask = m_slots.size() - 1;
    for (const uint64_t hash : old) {
      if (hash == 0) continue;
      size_t i = hash & mask;
      while (m_slots[i] != 0) i = (i + 1) & mask;
      m_slots[i] = hash;
    }
  }

  std::vector<uint64_t> m_slots;  // a power of two of them once anything is stored
  size_t m_size = 0;
  bool m_hasZero = false;
};

// Counting (pass 1) is most of the work; re-tokenising the chosen documents is the rest.
constexpr double kCountingShare = 0.9;
constexpr int64_t kReportEvery = 64;  // documents between progress reports

int32_t checkedInt32(int64_t value, const char* what) {
  if (value > std::numeric_limits<int32_t>::max())
    throw ConfigError({}, what, "exceeds the int32 range of the activation store's token table");
  return static_cast<int32_t>(value);
}

}  // namespace

/** Where documents come from: opened once per pass, plus how to describe it in the policy. */
struct TokenSampler::Source {
  std::function<std::unique_ptr<CorpusReader>()> open;
  std::filesystem::path path;  // for error messages
  nlohmann::ordered_json description;
};

uint64_t portableUniformBelow(std::mt19937_64& rng, uint64_t bound) {
  // 2^64 mod bound outputs at the top would favour small residues: redraw those.
  const uint64_t excess = (0 - bound) % bound;
  for (;;) {
    const uint64_t draw = rng();
    if (excess == 0 || draw < 0 - excess) return draw % bound;
  }
}

namespace {

/** Pass 1's outcome: every candidate sequence of every document, and the counts. */
struct CandidateScan {
  std::vector<Candidate> candidates;
  int64_t available = 0;  // candidate rows
  int64_t repeated = 0;   // rows dropped because an earlier row had their prefix
  int64_t documents = 0;  // documents read
};

/** Pass 1: tokenises every document and lists its candidate sequences (and their kept rows). */
CandidateScan scanCandidates(CorpusReader& reader, const tokenizer::Tokenizer& tokenizer,
                             const std::optional<int32_t>& bosId, const TokenSamplerConfig& config,
                             JobContext* job) {
  const int64_t bos = bosId ? 1 : 0;
  const int64_t skip = config.skipFirstPositions;
  const int64_t perSequence = config.sequenceLength - bos;  // document tokens in a full sequence
  CandidateScan scan;
  std::vector<Candidate>& candidates = scan.candidates;
  int64_t& available = scan.available;
  int64_t& repeated = scan.repeated;
  int64_t& documents = scan.documents;
  PrefixSet seen;  // every candidate row's prefix so far (distinctPrefixes only)
  while (config.maxDocuments == 0 || documents < config.maxDocuments) {
    if (job != nullptr) job->checkCancelled();
    const std::optional<CorpusDocument> document = reader.next();
    if (!document) break;
    const int32_t doc = checkedInt32(documents, "documents");
    const std::vector<int32_t> ids = tokenizer.encode(document->text);
    const auto tokens = static_cast<int64_t>(ids.size());
    for (int64_t start = 0; start < tokens; start += perSequence) {
      const int64_t piece = std::min(perSequence, tokens - start);
      if (piece < perSequence && config.shortPieces == ShortPieces::Drop) break;
      const int64_t rowLength = bos + piece;
      if (rowLength <= skip) continue;
      int64_t first = skip;
      if (config.distinctPrefixes) {
        // Rows whose prefix is already in `seen` can only be the first ones (the header); every
        // row's prefix goes in, for the sequences after this one.
        first = rowLength;
        uint64_t prefix = kEmptyPrefix;
        for (int64_t p = 0; p < rowLength; ++p) {
          prefix =
              extendPrefix(prefix, p < bos ? *bosId : ids[static_cast<size_t>(start + p - bos)]);
          if (p >= skip && seen.insert(prefix) && first == rowLength) first = p;
        }
        repeated += first - skip;
      }
      if (first == rowLength) continue;
      candidates.push_back({doc, checkedInt32(start, "document length"),
                            static_cast<int32_t>(piece), static_cast<int32_t>(first)});
      available += rowLength - first;
    }
    ++documents;
    if (job != nullptr && documents % kReportEvery == 0) {
      double fraction = reader.fractionRead();
      if (config.maxDocuments > 0)
        fraction = std::max(fraction, static_cast<double>(documents) / config.maxDocuments);
      job->progress(kCountingShare * fraction, "tokenising the corpus");
    }
  }
  return scan;
}

/** Selection: partial Fisher–Yates, portable (see the header); sorted back into corpus order.
 *  The last sequence is cut so that exactly `budget` rows are kept. */
std::vector<Candidate> chooseCandidates(std::vector<Candidate> candidates, int64_t bos,
                                        int64_t budget, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Candidate> chosen;
  int64_t kept = 0;
  for (size_t i = 0; kept < budget; ++i) {
    const size_t j = i + portableUniformBelow(rng, candidates.size() - i);
    std::swap(candidates[i], candidates[j]);
    Candidate candidate = candidates[i];
    int64_t keeps = bos + candidate.length - candidate.first;
    if (kept + keeps > budget) {  // the last sequence is cut to hit the budget exactly
      candidate.length = static_cast<int32_t>(candidate.length - (kept + keeps - budget));
      keeps = budget - kept;
    }
    chosen.push_back(candidate);
    kept += keeps;
  }
  std::sort(chosen.begin(), chosen.end(), [](const Candidate& a, const Candidate& b) {
    return a.doc != b.doc ? a.doc < b.doc : a.start < b.start;
  });
  return chosen;
}

}  // namespace

TokenSampler::TokenSampler(const tokenizer::Tokenizer& tokenizer, TokenSamplerConfig config)
    : m_tokenizer(tokenizer), m_config(config) {
  const bool bos = m_config.addBos.value_or(tokenizer::templateStartsWithBos(tokenizer));
  if (bos && !tokenizer.bosId())
    throw ConfigError({}, "add_bos", "the tokenizer has no BOS token to add");
  if (bos) m_bosId = tokenizer.bosId();
  const int64_t minimum = std::max<int64_t>(m_config.skipFirstPositions + 1, bos ? 2 : 1);
  if (m_config.skipFirstPositions < 0)
    throw ConfigError({}, "skip_first_positions", "must not be negative");
  if (m_config.sequenceLength < minimum)
    throw ConfigError({}, "sequence_length",
                      "must be at least " + std::to_string(minimum) +
                          " (one stored position after the skipped ones and the BOS)");
  checkedInt32(m_config.sequenceLength, "sequence_length");
  if (m_config.tokenBudget < 1) throw ConfigError({}, "token_budget", "must be at least 1");
  checkedInt32(m_config.tokenBudget, "token_budget");
  if (m_config.maxDocuments < 0)
    throw ConfigError({}, "max_documents", "must not be negative (0 means all)");
}

TokenSample TokenSampler::sample(const std::filesystem::path& corpus, const CorpusOptions& options,
                                 JobContext* job) const {
  Source source;
  source.path = corpus;
  source.open = [&] { return CorpusReader::open(corpus, options); };
  // Absolute, so the GUI and the CLI describe the same corpus with the same words.
  source.description["corpus"] = std::filesystem::absolute(corpus).lexically_normal().string();
  const CorpusFormat format = detectCorpusFormat(corpus, options.format);
  if (format == CorpusFormat::Jsonl) source.description["jsonl_field"] = options.jsonlField;
  if (format == CorpusFormat::TextFolder) source.description["recursive"] = options.recursive;
  return run(source, job);
}

TokenSample TokenSampler::sample(std::span<const CorpusDocument> documents, JobContext* job) const {
  Source source;
  source.path = "memory";
  source.open = [&] {
    return CorpusReader::fromDocuments({documents.begin(), documents.end()}, "memory");
  };
  source.description["corpus"] = "memory";
  source.description["corpus_format"] = "memory";
  return run(source, job);
}

TokenSample TokenSampler::run(const Source& source, JobContext* job) const {
  const int64_t bos = m_bosId ? 1 : 0;
  const int64_t length = m_config.sequenceLength;
  const int64_t skip = m_config.skipFirstPositions;
  const int64_t budget = m_config.tokenBudget;

  // Pass 1: every candidate sequence of every document, and how many positions it keeps.
  auto reader = source.open();
  nlohmann::ordered_json policy = source.description;
  if (!policy.contains("corpus_format")) {
    policy["corpus_format"] = corpusFormatName(reader->format());
    policy["document_split"] = documentSplitName(reader->split());
  }
  CandidateScan scan = scanCandidates(*reader, m_tokenizer, m_bosId, m_config, job);
  std::vector<Candidate>& candidates = scan.candidates;
  const int64_t available = scan.available, repeated = scan.repeated, documents = scan.documents;
  if (available < budget)
    throw ConfigError(
        source.path, "token_budget",
        "asks for " + std::to_string(budget) + " positions, but " + std::to_string(documents) +
            " documents give only " + std::to_string(available) +
            (m_config.distinctPrefixes
                 ? " rows with distinct causal prefixes (" + std::to_string(repeated) +
                       " more repeat an earlier row's prefix)"
                 : std::string()) +
            " (sequence length " + std::to_string(length) + ", skipping " + std::to_string(skip) +
            ")");

  const auto candidateCount = static_cast<int64_t>(candidates.size());
  const std::vector<Candidate> chosen =
      chooseCandidates(std::move(candidates), bos, budget, m_config.seed);

  // Pass 2: re-tokenise the chosen documents and fill the batch and the token table.
  TokenSample sample;
  sample.sequenceLength = length;
  sample.skipFirstPositions = skip;
  sample.bos = m_bosId.has_value();
  sample.padId = m_tokenizer.padId().value_or(m_tokenizer.eosId().value_or(0));
  sample.documentsRead = documents;
  const size_t sequences = chosen.size();
  sample.ids.assign(sequences * static_cast<size_t>(length), sample.padId);
  for (auto* column : {&sample.tokens.ids, &sample.tokens.doc, &sample.tokens.position})
    column->reserve(static_cast<size_t>(budget));
  const auto changed = [&] {
    return FormatError(source.path, "the corpus changed while it was being sampled");
  };
  reader = source.open();
  int64_t documentsSampled = 0;
  size_t next = 0;
  for (int32_t doc = 0; next < sequences; ++doc) {
    if (job != nullptr) job->checkCancelled();
    const std::optional<CorpusDocument> document = reader->next();
    if (!document) throw changed();
    if (chosen[next].doc != doc) continue;
    const std::vector<int32_t> tokens = m_tokenizer.encode(document->text);
    ++documentsSampled;
    for (; next < sequences && chosen[next].doc == doc; ++next) {
      const Candidate& piece = chosen[next];
      if (static_cast<size_t>(piece.start) + piece.length > tokens.size()) throw changed();
      int32_t* row = sample.ids.data() + next * static_cast<size_t>(length);
      if (m_bosId) row[0] = *m_bosId;
      std::copy_n(tokens.begin() + piece.start, piece.length, row + bos);
      const auto rowLength = static_cast<int32_t>(bos + piece.length);
      sample.lengths.push_back(rowLength);
      sample.firstStored.push_back(piece.first);
      sample.sequenceDocument.push_back(doc);
      sample.sequenceStart.push_back(piece.start);
      for (int64_t p = piece.first; p < rowLength; ++p) {
        sample.tokens.ids.push_back(row[p]);
        sample.tokens.doc.push_back(doc);
        sample.tokens.position.push_back(p < bos ? -1
                                                 : static_cast<int32_t>(piece.start + p - bos));
      }
    }
    if (job != nullptr)
      job->progress(kCountingShare + (1 - kCountingShare) * static_cast<double>(next) /
                                         static_cast<double>(sequences),
                    "cutting the sampled sequences");
  }

  policy["tokenizer"] = m_tokenizer.kind();
  policy["vocab_size"] = m_tokenizer.vocabSize();
  policy["sequence_length"] = length;
  policy["token_budget"] = budget;
  policy["skip_first_positions"] = skip;
  policy["add_bos"] = sample.bos;
  if (m_bosId) policy["bos_id"] = *m_bosId;
  policy["pad_id"] = sample.padId;
  policy["short_pieces"] = m_config.shortPieces == ShortPieces::Pad ? "pad" : "drop";
  // Stores made before this option have no "distinct_prefixes": they kept repeated prefixes.
  policy["distinct_prefixes"] = m_config.distinctPrefixes;
  policy["seed"] = m_config.seed;
  policy["max_documents"] = m_config.maxDocuments;
  policy["documents_read"] = documents;
  policy["documents_sampled"] = documentsSampled;
  policy["candidate_sequences"] = candidateCount;
  policy["candidate_rows"] = available;
  if (m_config.distinctPrefixes) policy["repeated_prefix_rows_dropped"] = repeated;
  policy["sequences"] = sequences;
  policy["selection"] =
      "partial Fisher-Yates over candidate sequences, std::mt19937_64(seed), rejection-sampled "
      "bounded draws; stored in corpus order";
  sample.policy = policy.dump();
  if (job != nullptr) job->progress(1.0, "sampling done");
  return sample;
}

}  // namespace strata::io
