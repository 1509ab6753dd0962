// llama.cpp's tokenizer test vectors (HF tokenizers output, add_special = false), run against
// GPT-2's vocab.json + merges.txt and Meta's Llama-3 tiktoken file. Every case must match
// exactly, and decoding the ids must give the input back.

#include <gtest/gtest.h>

#include <memory>

#include "support/temp_dir.h"
#include "support/tokenizer_json_fixtures.h"
#include "support/tokenizer_test_support.h"
#include "tokenizer/tokenizer.h"

namespace strata::testing {}  // namespace strata::testing

namespace strata::tokenizer {

namespace {

using namespace strata::testing;

std::shared_ptr<const Tokenizer> gpt2() {
  static const std::shared_ptr<const Tokenizer> tokenizer = loadVocabAndMerges(
      sharedData("tokenizers/gpt2/vocab.json"), sharedData("tokenizers/gpt2/merges.txt"));
  return tokenizer;
}

std::shared_ptr<const Tokenizer> llama3() {
  static const std::shared_ptr<const Tokenizer> tokenizer =
      loadTiktoken(sharedData("tokenizers/llama3/tokenizer.model"));
  return tokenizer;
}

void expectVectorsMatch(const Tokenizer& tokenizer, const std::string& name) {
  const auto cases =
      testing::readVocabTestVectors(sharedData("tokenizer-vectors/" + name + ".inp"),
                                    sharedData("tokenizer-vectors/" + name + ".out"));
  ASSERT_FALSE(cases.empty()) << "no cases read for " << name;
  size_t passed = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto ids = tokenizer.encode(cases[i].input);
    EXPECT_EQ(ids, cases[i].ids) << name << " case " << i << " input " << quoted(cases[i].input);
    passed += ids == cases[i].ids;
  }
  EXPECT_EQ(passed, cases.size()) << name << ": " << passed << "/" << cases.size() << " match";
}

void expectRoundTrip(const Tokenizer& tokenizer, const std::string& name) {
  const auto cases =
      testing::readVocabTestVectors(sharedData("tokenizer-vectors/" + name + ".inp"),
                                    sharedData("tokenizer-vectors/" + name + ".out"));
  ASSERT_FALSE(cases.empty());
  for (size_t i = 0; i < cases.size(); ++i)
    EXPECT_EQ(tokenizer.decode(tokenizer.encode(cases[i].input)), cases[i].input)
        << name << " case " << i;
}

TEST(TokenizerGolden, Gpt2MatchesHuggingFaceOnLlamaCppVectors) {
  expectVectorsMatch(*gpt2(), "gpt2");
}

TEST(TokenizerGolden, Gpt2DecodesEveryVectorBackToItsInput) { expectRoundTrip(*gpt2(), "gpt2"); }

TEST(TokenizerGolden, Llama3TiktokenMatchesHuggingFaceOnLlamaCppVectors) {
  expectVectorsMatch(*llama3(), "llama-bpe");
}

TEST(TokenizerGolden, Llama3DecodesEveryVectorBackToItsInput) {
  expectRoundTrip(*llama3(), "llama-bpe");
}

TEST(TokenizerGolden, Gpt2AsTokenizerJsonMatchesWithBothMergeSpellings) {
  for (const bool pairMerges : {false, true}) {
    TempDir dir;
    writeBinary(dir / "tokenizer.json", gpt2TokenizerJson(pairMerges).dump());
    const auto tokenizer = loadTokenizer(dir.path());
    EXPECT_EQ(tokenizer->kind(), "tokenizer.json (BPE, byte-level)");
    expectVectorsMatch(*tokenizer, "gpt2");
    expectRoundTrip(*tokenizer, "gpt2");
  }
}

TEST(TokenizerGolden, Llama3AsTokenizerJsonMatches) {
  TempDir dir;
  writeBinary(dir / "tokenizer.json", llama3TokenizerJsonText());
  const auto tokenizer = loadTokenizer(dir.path());
  expectVectorsMatch(*tokenizer, "llama-bpe");
  expectRoundTrip(*tokenizer, "llama-bpe");
  EXPECT_EQ(tokenizer->encode("Hi", true), (std::vector<int32_t>{128000, 13347}));
  EXPECT_EQ(tokenizer->bosId(), 128000);
  EXPECT_EQ(tokenizer->vocabSize(), 128256);
}

TEST(TokenizerGolden, ArbitraryBytesRoundTrip) {
  const std::string bytes = "\xFF\xFE ok \xC3 \xE2\x82 \x00 end";
  EXPECT_EQ(gpt2()->decode(gpt2()->encode(bytes)), bytes);
  EXPECT_EQ(llama3()->decode(llama3()->encode(bytes)), bytes);
}

TEST(TokenizerGolden, VectorFilesSplitLikeLlamaCpp) {
  const auto cases = testing::readVocabTestVectors(sharedData("tokenizer-vectors/gpt2.inp"),
                                                   sharedData("tokenizer-vectors/gpt2.out"));
  ASSERT_EQ(cases.size(), 46u);
  EXPECT_EQ(cases[0].input, "ied 4 \xC2\xBD months");
  EXPECT_EQ(cases[2].input, "");
  EXPECT_EQ(cases[7].input, "\n");
  EXPECT_TRUE(cases[2].ids.empty());
}

}  // namespace
}  // namespace strata::tokenizer
