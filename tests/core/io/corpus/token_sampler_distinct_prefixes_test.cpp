// Rows with repeated causal prefixes: under causal attention a row's hidden state is a function
// of its sequence's ids up to it, so two rows with the same prefix are one point stored twice.
// The sampler keeps the first row of every prefix (corpus order) and drops the others before it
// fills the budget (core/io/corpus/token_sampler.h); distinctPrefixes = false keeps them all.

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "common/error.h"
#include "engine/cached_geometry.h"
#include "io/corpus/token_sampler.h"
#include "support/temp_dir.h"
#include "tokenizer/bos_convention.h"
#include "tokenizer/tokenizer.h"

namespace strata::io {

namespace {

namespace fs = std::filesystem;

using Prefix = std::vector<int32_t>;

const tokenizer::Tokenizer& gpt2() {
  static const std::unique_ptr<tokenizer::Tokenizer> tokenizer = [] {
    const fs::path folder = fs::path(STRATA_SHARED_DATA_DIR) / "tokenizers" / "gpt2";
    EXPECT_TRUE(fs::exists(folder / "vocab.json")) << "missing shared data file: " << folder;
    return tokenizer::loadVocabAndMerges(folder / "vocab.json", folder / "merges.txt");
  }();
  return *tokenizer;
}

/**
 * Documents that start alike, as paragraphs of source code do: every one opens with the same
 * two lines (longer than a sequence), some share a third, one is a verbatim copy of another
 * and one repeats a long document's first sequences before it goes its own way.
 */
std::vector<CorpusDocument> alikeDocuments() {
  const std::string head = "    def handle(self, event):\n        if event is None:\n";
  std::vector<CorpusDocument> documents;
  std::string longOne = head;
  for (int i = 0; i < 12; ++i) longOne += "        total += weights[" + std::to_string(i) + "]\n";
  documents.push_back({longOne, "long"});
  for (int d = 0; d < 24; ++d) {
    std::string text = head;
    if (d % 3 == 0) text += "            return None\n";
    text += "        return event.get('key" + std::to_string(d) + "')\n";
    documents.push_back({text, "doc" + std::to_string(d)});
  }
  const CorpusDocument copy = documents[5];
  documents.push_back(copy);                                       // verbatim
  documents.push_back({longOne.substr(0, 180) + "pass", "part"});  // the long one's start
  return documents;
}

TokenSamplerConfig alikeConfig(int64_t budget, bool distinct = true, uint64_t seed = 3) {
  TokenSamplerConfig config;
  config.sequenceLength = 16;
  config.tokenBudget = budget;
  config.seed = seed;
  config.addBos = true;
  config.distinctPrefixes = distinct;
  return config;
}

/** The causal prefix of every stored row: its sequence's ids up to and including it. */
std::vector<Prefix> storedPrefixes(const TokenSample& sample) {
  std::vector<Prefix> prefixes;
  for (int64_t s = 0; s < sample.numSequences(); ++s) {
    const auto sequence = sample.sequence(s);
    for (int32_t p = sample.firstStored[s]; p < sample.lengths[s]; ++p)
      prefixes.emplace_back(sequence.begin(), sequence.begin() + p + 1);
  }
  return prefixes;
}

size_t distinctCount(const std::vector<Prefix>& prefixes) {
  return std::set<Prefix>(prefixes.begin(), prefixes.end()).size();
}

/** Where a row sits: document and position in it (−1 for a BOS). */
using RowPlace = std::pair<int32_t, int32_t>;

/**
 * Written here from the definition, not from the sampler: every row the documents give
 * (sequences of BOS + 15 document tokens, position 0 skipped) and the place of the first
 * row, in corpus order, with each prefix.
 */
std::map<Prefix, RowPlace> firstRowOfEveryPrefix(const std::vector<CorpusDocument>& documents) {
  const int32_t bos = *gpt2().bosId();
  std::map<Prefix, RowPlace> first;
  for (size_t d = 0; d < documents.size(); ++d) {
    const auto ids = gpt2().encode(documents[d].text);
    for (size_t start = 0; start < ids.size(); start += 15) {
      Prefix prefix{bos};
      for (size_t i = start; i < std::min(ids.size(), start + 15); ++i) {
        prefix.push_back(ids[i]);
        first.emplace(prefix, RowPlace{static_cast<int32_t>(d), static_cast<int32_t>(i)});
      }
    }
  }
  return first;
}

TEST(TokenSamplerDistinctPrefixes, StoresNoPrefixTwiceAndFillsTheBudget) {
  const auto documents = alikeDocuments();
  for (const int64_t budget : {40, 97, 150}) {
    const TokenSample sample = TokenSampler(gpt2(), alikeConfig(budget)).sample(documents);
    const std::vector<Prefix> prefixes = storedPrefixes(sample);
    EXPECT_EQ(static_cast<int64_t>(sample.tokens.size()), budget);
    EXPECT_EQ(static_cast<int64_t>(prefixes.size()), budget);
    EXPECT_EQ(distinctCount(prefixes), prefixes.size()) << "budget " << budget;
  }
}

TEST(TokenSamplerDistinctPrefixes, KeepsTheFirstRowOfEveryPrefixAndNoOther) {
  // A budget of every distinct row takes them all: exactly the definition's rows.
  const auto documents = alikeDocuments();
  const std::map<Prefix, RowPlace> first = firstRowOfEveryPrefix(documents);
  const auto all = static_cast<int64_t>(first.size());
  const TokenSample sample = TokenSampler(gpt2(), alikeConfig(all)).sample(documents);
  const std::vector<Prefix> prefixes = storedPrefixes(sample);
  ASSERT_EQ(static_cast<int64_t>(prefixes.size()), all);
  size_t notFirst = 0;
  for (size_t row = 0; row < prefixes.size(); ++row) {
    const auto found = first.find(prefixes[row]);
    ASSERT_NE(found, first.end()) << "row " << row;
    const RowPlace place{sample.tokens.doc[row], sample.tokens.position[row]};
    if (found->second != place && notFirst++ == 0)
      ADD_FAILURE() << "row " << row << " (document " << place.first << ", position "
                    << place.second << ") repeats the prefix of document " << found->second.first
                    << ", position " << found->second.second;
  }
  EXPECT_EQ(notFirst, 0u) << "rows that are not the first with their prefix";
  EXPECT_EQ(distinctCount(prefixes), prefixes.size());
}

TEST(TokenSamplerDistinctPrefixes, RefusesABudgetBeyondTheDistinctRowsAndSaysHowMany) {
  const auto documents = alikeDocuments();
  const size_t distinct = firstRowOfEveryPrefix(documents).size();
  try {
    TokenSampler(gpt2(), alikeConfig(static_cast<int64_t>(distinct) + 1)).sample(documents);
    FAIL() << "no ConfigError for " << distinct + 1 << " of " << distinct << " distinct rows";
  } catch (const ConfigError& error) {
    EXPECT_EQ(error.field(), "token_budget");
    const std::string says = "give only " + std::to_string(distinct) + " rows with distinct";
    EXPECT_NE(std::string(error.what()).find(says), std::string::npos) << error.what();
  }
  // Every row counts when repeats are kept.
  EXPECT_NO_THROW(TokenSampler(gpt2(), alikeConfig(static_cast<int64_t>(distinct) + 1, false))
                      .sample(documents));
}

TEST(TokenSamplerDistinctPrefixes, SameSeedGivesTheSameRows) {
  const auto documents = alikeDocuments();
  const TokenSample a = TokenSampler(gpt2(), alikeConfig(120, true, 5)).sample(documents);
  const TokenSample b = TokenSampler(gpt2(), alikeConfig(120, true, 5)).sample(documents);
  EXPECT_EQ(a.ids, b.ids);
  EXPECT_EQ(a.firstStored, b.firstStored);
  EXPECT_EQ(a.tokens.doc, b.tokens.doc);
  EXPECT_EQ(a.tokens.position, b.tokens.position);
  EXPECT_EQ(a.policy, b.policy);
}

TEST(TokenSamplerDistinctPrefixes, TurnedOffStoresEveryPositionAfterTheSkippedOnes) {
  const auto documents = alikeDocuments();
  const TokenSample sample = TokenSampler(gpt2(), alikeConfig(150, false)).sample(documents);
  EXPECT_EQ(sample.tokens.size(), 150u);
  for (const int32_t first : sample.firstStored) EXPECT_EQ(first, 1);
  // These documents repeat prefixes: kept, some rows are the same point twice.
  EXPECT_LT(distinctCount(storedPrefixes(sample)), 150u);
  const auto policy = nlohmann::json::parse(sample.policy);
  EXPECT_EQ(policy.at("distinct_prefixes"), false);
  EXPECT_FALSE(policy.contains("repeated_prefix_rows_dropped"));
}

TEST(TokenSamplerDistinctPrefixes, ALoneBosIsStoredOnceWhenNothingIsSkipped) {
  // With position 0 stored, every sequence's first row is the prefix [BOS]: the same hidden
  // state in every sequence. Only the corpus's first sequence may keep it.
  const auto documents = alikeDocuments();
  TokenSamplerConfig config = alikeConfig(static_cast<int64_t>(
      firstRowOfEveryPrefix(documents).size()));  // every distinct row of skip 1, plus [BOS]
  config.skipFirstPositions = 0;
  config.tokenBudget += 1;
  const TokenSample sample = TokenSampler(gpt2(), config).sample(documents);
  EXPECT_EQ(std::count(sample.tokens.position.begin(), sample.tokens.position.end(), -1), 1);
  EXPECT_EQ(sample.tokens.doc.front(), 0);
  EXPECT_EQ(sample.tokens.position.front(), -1);
  EXPECT_EQ(distinctCount(storedPrefixes(sample)), sample.tokens.size());
}

TEST(TokenSamplerDistinctPrefixes, TheDefaultCorpusGivesNoRowTwice) {
  // As `score --default` samples argparse.py (engine/cached_geometry.cpp) with the small
  // default model's byte tokenizer, its BOS as capture decides it. Kept, its repeated
  // prefixes ("    def ", "        if ", docstrings) made 50 of 1,024 curvature anchors of
  // every block's layer zero-spread.
  const fs::path model = fs::path(STRATA_SOURCE_DIR) / "resources" / "models" / "default";
  ASSERT_TRUE(fs::exists(model / "tokenizer.json")) << "missing the small default model: " << model;
  const engine::CachedGeometryRequest request = engine::defaultGeometryRequest();
  ASSERT_TRUE(fs::exists(request.corpus)) << "missing the default corpus: " << request.corpus;
  const auto tokenizer = tokenizer::loadTokenizer(model);
  TokenSamplerConfig config = request.sampling;
  config.addBos = tokenizer::bosConvention(model, *tokenizer).prepend;
  ASSERT_EQ(config.tokenBudget, 4096);
  ASSERT_EQ(config.sequenceLength, 128);
  ASSERT_TRUE(config.distinctPrefixes);

  const TokenSample sample =
      TokenSampler(*tokenizer, config).sample(request.corpus, request.corpusOptions);
  EXPECT_EQ(sample.tokens.size(), 4096u);
  EXPECT_EQ(distinctCount(storedPrefixes(sample)), 4096u);

  config.distinctPrefixes = false;
  const TokenSample everyRow =
      TokenSampler(*tokenizer, config).sample(request.corpus, request.corpusOptions);
  EXPECT_LT(distinctCount(storedPrefixes(everyRow)), 4096u) << "the corpus repeats no prefix";
}

TEST(TokenSamplerDistinctPrefixes, WikiTextGivesNoRowTwice) {
  // Kept, only 8,132 (paragraphs: section headings such as " = = History = = " are documents
  // of their own that start alike) and 8,180 (articles) of the 8,192 prefixes were distinct.
  const fs::path file = fs::path(STRATA_SHARED_DATA_DIR) / "corpora" / "wikitext2-valid.txt";
  ASSERT_TRUE(fs::exists(file)) << "missing shared data file: " << file;
  for (const DocumentSplit split : {DocumentSplit::Paragraphs, DocumentSplit::WikiTextArticles}) {
    const TokenSample sample =
        TokenSampler(gpt2(), TokenSamplerConfig{}).sample(file, {.split = split});
    EXPECT_EQ(sample.tokens.size(), 8192u);
    EXPECT_EQ(distinctCount(storedPrefixes(sample)), 8192u) << documentSplitName(split);
  }
}

TEST(TokenSamplerDistinctPrefixes, ChangeTheGeometryCacheKey) {
  // A store cached under the old rule (repeats kept) must not be read for the new one.
  TempDir dir;
  engine::CachedGeometryRequest request;
  request.modelFolder = fs::path(STRATA_SOURCE_DIR) / "resources" / "models" / "default";
  request.corpus = dir / "corpus.txt";
  std::ofstream(request.corpus) << "def f():\n    return 1\n";
  request.cacheFolder = dir / "cache";
  engine::CachedGeometryRequest everyRow = request;
  everyRow.sampling.distinctPrefixes = false;
  EXPECT_NE(engine::cachedStorePath(request), engine::cachedStorePath(everyRow));
}

}  // namespace
}  // namespace strata::io
