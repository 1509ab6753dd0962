// Tokenised sampling for capture: seeded and portable selection, the exact budget, skipped
// sink positions, and a token table that agrees with the documents it claims to come from.
// (Rows with repeated causal prefixes: token_sampler_distinct_prefixes_test.cpp.)

#include <gtest/gtest.h>

#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>

#include "common/error.h"
#include "common/job.h"
#include "io/corpus/token_sampler.h"
#include "support/temp_dir.h"
#include "tokenizer/tokenizer.h"

namespace strata::io {

namespace {

namespace fs = std::filesystem;

const tokenizer::Tokenizer& gpt2() {
  static const std::unique_ptr<tokenizer::Tokenizer> tokenizer = [] {
    const fs::path folder = fs::path(STRATA_SHARED_DATA_DIR) / "tokenizers" / "gpt2";
    EXPECT_TRUE(fs::exists(folder / "vocab.json")) << "missing shared data file: " << folder;
    return tokenizer::loadVocabAndMerges(folder / "vocab.json", folder / "merges.txt");
  }();
  return *tokenizer;
}

/** `count` documents of varied length (a few words to a few hundred), fixed by `salt`. */
std::vector<CorpusDocument> syntheticDocuments(int count, uint32_t salt = 1) {
  static const char* const words[] = {"the",    "river", "ran",   "quietly", "past",  "old",
                                      "mills,", "where", "12",    "workers", "sang.", "Then",
                                      "night",  "fell;", "lamps", "glowed",  "and",   "no-one"};
  std::vector<CorpusDocument> documents;
  uint32_t state = salt;
  for (int d = 0; d < count; ++d) {
    const int length = 2 + (d * 37) % 300;
    std::string text;
    for (int w = 0; w < length; ++w) {
      state = state * 1664525u + 1013904223u;  // a fixed LCG: the same text everywhere
      if (w > 0) text += ' ';
      text += words[(state >> 16) % std::size(words)];
    }
    documents.push_back({text, "doc" + std::to_string(d)});
  }
  return documents;
}

TokenSamplerConfig smallConfig(int64_t budget = 300, uint64_t seed = 7) {
  TokenSamplerConfig config;
  config.sequenceLength = 16;
  config.tokenBudget = budget;
  config.seed = seed;
  config.addBos = true;  // GPT-2's <|endoftext|> as BOS: these tests exercise the BOS slot
  return config;
}

TokenSample sampleSynthetic(const TokenSamplerConfig& config) {
  const auto documents = syntheticDocuments(40);
  return TokenSampler(gpt2(), config).sample(documents);
}

std::vector<std::pair<int32_t, int32_t>> chosenPieces(const TokenSample& sample) {
  std::vector<std::pair<int32_t, int32_t>> pieces;
  for (int64_t s = 0; s < sample.numSequences(); ++s)
    pieces.emplace_back(sample.sequenceDocument[s], sample.sequenceStart[s]);
  return pieces;
}

TEST(TokenSampler, SameSeedGivesAnIdenticalSample) {
  const TokenSample a = sampleSynthetic(smallConfig(300, 11));
  const TokenSample b = sampleSynthetic(smallConfig(300, 11));
  EXPECT_EQ(a.ids, b.ids);
  EXPECT_EQ(a.lengths, b.lengths);
  EXPECT_EQ(chosenPieces(a), chosenPieces(b));
  EXPECT_EQ(a.tokens.ids, b.tokens.ids);
  EXPECT_EQ(a.tokens.doc, b.tokens.doc);
  EXPECT_EQ(a.tokens.position, b.tokens.position);
  EXPECT_EQ(a.policy, b.policy);
}

TEST(TokenSampler, DifferentSeedsSelectDifferentSequences) {
  EXPECT_NE(chosenPieces(sampleSynthetic(smallConfig(300, 1))),
            chosenPieces(sampleSynthetic(smallConfig(300, 2))));
}

TEST(TokenSampler, PinsTheRandomStreamSoSelectionsArePortable) {
  // The standard fixes mt19937_64's 10000th output for the default seed.
  std::mt19937_64 standard;
  standard.discard(9999);
  EXPECT_EQ(standard(), 9981545732273789042ull);
  std::mt19937_64 rng(7);
  std::vector<uint64_t> draws;
  for (int i = 0; i < 6; ++i) draws.push_back(portableUniformBelow(rng, 10 + i));
  EXPECT_EQ(draws, (std::vector<uint64_t>{5, 7, 6, 4, 5, 3}));
  const TokenSample sample = sampleSynthetic(smallConfig(40, 7));
  // Recorded from this implementation: any standard library must reproduce it.
  EXPECT_EQ(chosenPieces(sample),
            (std::vector<std::pair<int32_t, int32_t>>{{5, 240}, {7, 90}, {7, 165}, {21, 225}}));
  // Recorded before rows with repeated prefixes were dropped: turned off, the option gives the
  // old selection back.
  TokenSamplerConfig everyRow = smallConfig(40, 7);
  everyRow.distinctPrefixes = false;
  EXPECT_EQ(chosenPieces(sampleSynthetic(everyRow)),
            (std::vector<std::pair<int32_t, int32_t>>{{2, 60}, {16, 165}, {38, 0}}));
}

TEST(TokenSampler, KeepsExactlyTheBudget) {
  for (const int64_t budget : {1, 14, 15, 16, 300, 1001}) {
    const TokenSample sample = sampleSynthetic(smallConfig(budget));
    EXPECT_EQ(static_cast<int64_t>(sample.tokens.size()), budget);
    int64_t rows = 0;
    for (int64_t s = 0; s < sample.numSequences(); ++s)
      rows += sample.lengths[s] - sample.firstStored[s];
    EXPECT_EQ(rows, budget);
  }
}

TEST(TokenSampler, NeverStoresTheSkippedFirstPositions) {
  const TokenSample sample = sampleSynthetic(smallConfig());
  ASSERT_TRUE(sample.bos);  // GPT-2's <|endoftext|> serves as BOS
  for (const int32_t position : sample.tokens.position) EXPECT_GE(position, 0);
  for (const int32_t id : sample.tokens.ids) EXPECT_NE(id, *gpt2().bosId());

  TokenSamplerConfig noBos = smallConfig();
  noBos.addBos = false;
  noBos.skipFirstPositions = 3;
  const TokenSample plain = sampleSynthetic(noBos);
  EXPECT_FALSE(plain.bos);
  size_t row = 0;
  for (int64_t s = 0; s < plain.numSequences(); ++s) {
    // The first stored row of a sequence is its fourth document token, or a later one where
    // an earlier sequence started with the same tokens.
    EXPECT_GE(plain.firstStored[s], 3);
    EXPECT_EQ(plain.tokens.position[row], plain.sequenceStart[s] + plain.firstStored[s]);
    row += static_cast<size_t>(plain.lengths[s] - plain.firstStored[s]);
  }
  EXPECT_EQ(row, plain.tokens.size());
}

TEST(TokenSampler, LeavesTheBosToTheTokenizersTemplateWhenNotTold) {
  // GPT-2's template adds no BOS (HF: add_bos_token false), although <|endoftext|> can serve
  // as one: unset, the sampler follows the template.
  TokenSamplerConfig config = smallConfig();
  config.addBos.reset();
  config.skipFirstPositions = 0;
  const TokenSample sample = sampleSynthetic(config);
  EXPECT_FALSE(sample.bos);
  for (const int32_t position : sample.tokens.position) EXPECT_GE(position, 0);
}

TEST(TokenSampler, StoresTheBosWithPositionMinusOneWhenNothingIsSkipped) {
  TokenSamplerConfig config = smallConfig(64);
  config.skipFirstPositions = 0;
  config.distinctPrefixes = false;  // else only the corpus's first sequence keeps its BOS row
  const TokenSample sample = sampleSynthetic(config);
  size_t row = 0;
  for (int64_t s = 0; s < sample.numSequences(); ++s) {
    EXPECT_EQ(sample.tokens.ids[row], *gpt2().bosId());
    EXPECT_EQ(sample.tokens.position[row], -1);
    row += static_cast<size_t>(sample.lengths[s]);
  }
}

TEST(TokenSampler, TokenTableAgreesWithReTokenisedDocuments) {
  const auto documents = syntheticDocuments(40);
  const TokenSample sample = TokenSampler(gpt2(), smallConfig(500)).sample(documents);
  for (size_t i = 0; i < sample.tokens.size(); ++i) {
    const auto ids = gpt2().encode(documents.at(sample.tokens.doc[i]).text);
    ASSERT_LT(static_cast<size_t>(sample.tokens.position[i]), ids.size()) << "row " << i;
    EXPECT_EQ(ids[sample.tokens.position[i]], sample.tokens.ids[i]) << "row " << i;
  }
}

TEST(TokenSampler, DecodedSequencesAreFoundInTheirDocuments) {
  const auto documents = syntheticDocuments(40);
  const TokenSample sample = TokenSampler(gpt2(), smallConfig(500)).sample(documents);
  size_t row = 0;
  for (int64_t s = 0; s < sample.numSequences(); ++s) {
    const auto sequence = sample.sequence(s);
    const auto text = gpt2().decode(sequence.subspan(1, sample.lengths[s] - 1));
    EXPECT_NE(documents.at(sample.sequenceDocument[s]).text.find(text), std::string::npos)
        << "sequence " << s << ": '" << text << "'";
    // The stored rows of the sequence are its tokens from its first stored position, in order.
    const int32_t first = sample.firstStored[s];
    EXPECT_GE(first, 1);  // never the skipped position
    const auto rows = std::span(sample.tokens.ids).subspan(row, sample.lengths[s] - first);
    EXPECT_TRUE(std::equal(rows.begin(), rows.end(), sequence.begin() + first));
    row += rows.size();
  }
  EXPECT_EQ(row, sample.tokens.size());
}

TEST(TokenSampler, PadsShortPiecesAndDropsThemOnRequest) {
  const TokenSample padded = sampleSynthetic(smallConfig(1001));
  int shortOnes = 0;
  for (int64_t s = 0; s < padded.numSequences(); ++s) {
    const auto sequence = padded.sequence(s);
    EXPECT_EQ(sequence[0], *gpt2().bosId());
    EXPECT_EQ(padded.sequenceStart[s] % 15, 0);  // consecutive pieces of 15 document tokens
    for (int64_t p = padded.lengths[s]; p < padded.sequenceLength; ++p)
      EXPECT_EQ(sequence[p], padded.padId);
    shortOnes += padded.lengths[s] < padded.sequenceLength;
  }
  EXPECT_GT(shortOnes, 1);

  TokenSamplerConfig drop = smallConfig(1001);
  drop.shortPieces = ShortPieces::Drop;
  const TokenSample dropped = sampleSynthetic(drop);
  // Only the sequence cut to meet the budget may be short.
  EXPECT_LE(std::count_if(dropped.lengths.begin(), dropped.lengths.end(),
                          [](int32_t length) { return length < 16; }),
            1);
}

TEST(TokenSampler, RefusesABudgetLargerThanTheCorpus) {
  const auto documents = syntheticDocuments(3);
  try {
    TokenSampler(gpt2(), smallConfig(100000)).sample(documents);
    FAIL() << "no ConfigError";
  } catch (const ConfigError& error) {
    EXPECT_EQ(error.field(), "token_budget");
    EXPECT_NE(std::string(error.what()).find("give only"), std::string::npos) << error.what();
  }
}

TEST(TokenSampler, RefusesImpossibleConfigs) {
  TokenSamplerConfig config = smallConfig();
  config.sequenceLength = 2;
  config.skipFirstPositions = 2;
  EXPECT_THROW(TokenSampler(gpt2(), config), ConfigError);
  config = smallConfig(0);
  EXPECT_THROW(TokenSampler(gpt2(), config), ConfigError);
}

TEST(TokenSampler, UsesOnlyTheFirstMaxDocuments) {
  TokenSamplerConfig config = smallConfig(200);
  config.maxDocuments = 20;
  const TokenSample sample = sampleSynthetic(config);
  EXPECT_EQ(sample.documentsRead, 20);
  for (const int32_t doc : sample.tokens.doc) EXPECT_LT(doc, 20);
}

TEST(TokenSampler, DescribesItsPolicyAsJson) {
  TempDir dir;
  const auto file = dir / "corpus.txt";
  std::string text;
  for (const auto& document : syntheticDocuments(40)) text += document.text + "\n\n";
  std::ofstream(file, std::ios::binary) << text;
  const TokenSample sample = TokenSampler(gpt2(), smallConfig(300, 99)).sample(file);
  const auto policy = nlohmann::json::parse(sample.policy);
  EXPECT_EQ(policy.at("sequence_length"), 16);
  EXPECT_EQ(policy.at("token_budget"), 300);
  EXPECT_EQ(policy.at("skip_first_positions"), 1);
  EXPECT_EQ(policy.at("seed"), 99);
  EXPECT_EQ(policy.at("add_bos"), true);
  EXPECT_EQ(policy.at("corpus"), fs::absolute(file).lexically_normal().string());
  EXPECT_EQ(policy.at("document_split"), "paragraphs");
  EXPECT_EQ(policy.at("documents_read"), 40);
  EXPECT_EQ(policy.at("sequences"), sample.numSequences());
  EXPECT_EQ(policy.at("distinct_prefixes"), true);
}

TEST(TokenSampler, SamplesAFileAsItSamplesItsDocuments) {
  TempDir dir;
  const auto file = dir / "corpus.txt";
  std::string text;
  for (const auto& document : syntheticDocuments(40)) text += document.text + "\n\n";
  std::ofstream(file, std::ios::binary) << text;
  const TokenSampler sampler(gpt2(), smallConfig(300));
  const TokenSample fromFile = sampler.sample(file);
  const TokenSample fromMemory = sampler.sample(syntheticDocuments(40));
  EXPECT_EQ(fromFile.ids, fromMemory.ids);
  EXPECT_EQ(fromFile.tokens.doc, fromMemory.tokens.doc);
  EXPECT_EQ(fromFile.tokens.position, fromMemory.tokens.position);
}

/** Records progress fractions; cancels the job once `cancelAt` reports have arrived. */
class RecordingSink : public ProgressSink {
 public:
  explicit RecordingSink(CancellationToken token, size_t cancelAt = 0)
      : m_token(std::move(token)), m_cancelAt(cancelAt) {}
  void progress(double fraction, const std::string&) override {
    fractions.push_back(fraction);
    if (m_cancelAt > 0 && fractions.size() >= m_cancelAt) m_token.cancel();
  }
  void message(MessageLevel, const std::string&) override {}
  std::vector<double> fractions;

 private:
  CancellationToken m_token;
  size_t m_cancelAt;
};

TEST(TokenSampler, ReportsProgressAndStopsWhenCancelled) {
  const auto documents = syntheticDocuments(300);
  const TokenSampler sampler(gpt2(), smallConfig(500));
  CancellationToken token;
  RecordingSink sink(token);
  JobContext job(sink, token);
  sampler.sample(documents, &job);
  ASSERT_FALSE(sink.fractions.empty());
  EXPECT_TRUE(std::is_sorted(sink.fractions.begin(), sink.fractions.end()));
  EXPECT_DOUBLE_EQ(sink.fractions.back(), 1.0);

  CancellationToken cancelled;
  RecordingSink cancelling(cancelled, 1);
  JobContext cancelledJob(cancelling, cancelled);
  EXPECT_THROW(sampler.sample(documents, &cancelledJob), CancelledError);
  EXPECT_EQ(cancelling.fractions.size(), 1u);
}

TEST(TokenSampler, SamplesTinyShakespeareWithTheDefaults) {
  const fs::path file = fs::path(STRATA_SHARED_DATA_DIR) / "corpora" / "tinyshakespeare.txt";
  ASSERT_TRUE(fs::exists(file)) << "missing shared data file: " << file;
  const TokenSample sample = TokenSampler(gpt2(), TokenSamplerConfig{}).sample(file);
  EXPECT_EQ(sample.tokens.size(), 8192u);
  EXPECT_EQ(sample.sequenceLength, 128);
  std::set<int32_t> documents(sample.tokens.doc.begin(), sample.tokens.doc.end());
  EXPECT_GT(documents.size(), 30u);  // spread over the play, not one speech
  EXPECT_TRUE(std::is_sorted(sample.tokens.doc.begin(), sample.tokens.doc.end()));
}

}  // namespace
}  // namespace strata::io
