// loadTokenizer's choice of file in a model folder, its errors, the Llama-3 special tokens,
// thread safety, and load / encode speed on the shared data.

#include <gtest/gtest.h>

#include <ctime>
#include <iostream>
#include <thread>

#include "common/error.h"
#include "support/temp_dir.h"
#include "support/tokenizer_test_support.h"
#include "tokenizer/tokenizer.h"

namespace strata::testing {}  // namespace strata::testing

namespace strata::tokenizer {

namespace {

using namespace strata::testing;
namespace fs = std::filesystem;
using Ids = std::vector<int32_t>;

fs::path requireData(const std::string& relative) {
  const fs::path path = sharedData(relative);
  if (!fs::exists(path)) ADD_FAILURE() << "missing test data file: " << path;
  return path;
}

void link(const fs::path& target, const fs::path& link) { fs::create_symlink(target, link); }

TEST(TokenizerLoad, PrefersTokenizerJsonOverTheOtherFiles) {
  TempDir dir;
  writeBinary(
      dir / "tokenizer.json",
      R"({"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]}})");
  link(requireData("tokenizers/gpt2/vocab.json"), dir / "vocab.json");
  link(requireData("tokenizers/gpt2/merges.txt"), dir / "merges.txt");
  const auto tokenizer = loadTokenizer(dir.path());
  EXPECT_EQ(tokenizer->kind(), "tokenizer.json (BPE)");
  EXPECT_EQ(tokenizer->encode("ab"), Ids{2});
}

TEST(TokenizerLoad, ReadsGpt2VocabAndMergesWithEndOfTextAsSpecial) {
  TempDir dir;
  link(requireData("tokenizers/gpt2/vocab.json"), dir / "vocab.json");
  link(requireData("tokenizers/gpt2/merges.txt"), dir / "merges.txt");
  const auto tokenizer = loadTokenizer(dir.path());
  EXPECT_EQ(tokenizer->kind(), "vocab.json + merges.txt (BPE, byte-level)");
  EXPECT_EQ(tokenizer->vocabSize(), 50257);
  EXPECT_EQ(tokenizer->eosId(), 50256);
  EXPECT_TRUE(tokenizer->isSpecial(50256));
  EXPECT_EQ(tokenizer->encode("Hello<|endoftext|>"), (Ids{15496, 50256}));
  EXPECT_EQ(tokenizer->encode("Hello", true), Ids{15496});  // GPT-2 adds no BOS, as in HF
  EXPECT_EQ(tokenizer->tokenText(18435), "\u0120Hello");
  EXPECT_EQ(tokenizer->tokenId("\u0120Hello"), 18435);
}

TEST(TokenizerLoad, RecognisesATiktokenTokenizerModelByItsContent) {
  TempDir dir;
  link(requireData("tokenizers/llama3/tokenizer.model"), dir / "tokenizer.model");
  const std::clock_t start = std::clock();
  const auto tokenizer = loadTokenizer(dir.path());
  const double cpuSeconds = double(std::clock() - start) / CLOCKS_PER_SEC;
  std::cout << "[ info ] Llama-3 tiktoken load: " << cpuSeconds * 1000 << " ms CPU\n";
  EXPECT_LT(cpuSeconds, 1.0) << "loading 128,000 ranks should take well under a second";
  EXPECT_EQ(tokenizer->kind(), "tiktoken (Llama-3)");
  EXPECT_EQ(tokenizer->vocabSize(), 128256);
}

TEST(TokenizerLoad, Llama3HasMetasSpecialTokens) {
  const auto tokenizer = loadTiktoken(requireData("tokenizers/llama3/tokenizer.model"));
  EXPECT_EQ(tokenizer->tokenId("<|begin_of_text|>"), 128000);
  EXPECT_EQ(tokenizer->tokenId("<|end_of_text|>"), 128001);
  EXPECT_EQ(tokenizer->tokenId("<|reserved_special_token_3|>"), 128005);
  EXPECT_EQ(tokenizer->tokenId("<|start_header_id|>"), 128006);
  EXPECT_EQ(tokenizer->tokenId("<|end_header_id|>"), 128007);
  EXPECT_EQ(tokenizer->tokenId("<|reserved_special_token_4|>"), 128008);
  EXPECT_EQ(tokenizer->tokenId("<|eot_id|>"), 128009);
  EXPECT_EQ(tokenizer->tokenId("<|reserved_special_token_5|>"), 128010);
  EXPECT_EQ(tokenizer->tokenId("<|reserved_special_token_250|>"), 128255);
  EXPECT_FALSE(tokenizer->tokenId("<|reserved_special_token_251|>").has_value());
  EXPECT_EQ(tokenizer->bosId(), 128000);
  EXPECT_EQ(tokenizer->eosId(), 128001);

  const Ids ids =
      tokenizer->encode("<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>", true);
  EXPECT_EQ(ids, (Ids{128000, 128006, 882, 128007, 271, 13347, 128009}));
  EXPECT_EQ(tokenizer->decode(ids, true), "user\n\nHi");
  EXPECT_EQ(tokenizer->decode(ids),
            "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>");
  EXPECT_THROW(tokenizer->tokenText(128256), std::out_of_range);
}

TEST(TokenizerLoad, ReadsALlama2cTokenizerBin) {
  TempDir dir;
  link(requireData("models/stories260K/tok512.bin"), dir / "tokenizer.bin");
  EXPECT_EQ(loadTokenizer(dir.path())->kind(), "llama2.c tokenizer.bin");
  // A file may be named directly, whatever its name.
  EXPECT_EQ(loadTokenizer(requireData("models/stories260K/tok512.bin"))->vocabSize(), 512);
}

TEST(TokenizerLoad, ReadsASentencePieceTokenizerModel) {
  TempDir dir;
  link(requireData("models/stories260K/tok512.model"), dir / "tokenizer.model");
  const auto tokenizer = loadTokenizer(dir.path());
  EXPECT_EQ(tokenizer->kind(), "SentencePiece tokenizer.model (byte fallback)");
  EXPECT_EQ(tokenizer->vocabSize(), 512);
}

TEST(TokenizerLoad, FolderWithoutATokenizerIsAFormatErrorNamingIt) {
  TempDir dir;
  writeBinary(dir / "config.json", "{}");
  try {
    loadTokenizer(dir.path());
    ADD_FAILURE() << "no error";
  } catch (const FormatError& e) {
    EXPECT_EQ(e.file(), dir.path());
    EXPECT_NE(std::string(e.what()).find("tokenizer.json"), std::string::npos) << e.what();
  }
  EXPECT_THROW(loadTokenizer(dir / "absent"), IoError);
}

TEST(TokenizerLoad, ConcurrentEncodesAgreeWithSerialOnes) {
  const auto tokenizer = loadVocabAndMerges(requireData("tokenizers/gpt2/vocab.json"),
                                            requireData("tokenizers/gpt2/merges.txt"));
  const std::string corpus =
      readBinary(requireData("corpora/tinyshakespeare.txt")).substr(0, 200000);
  std::vector<std::string> chunks;
  for (size_t i = 0; i < corpus.size(); i += 25000) chunks.push_back(corpus.substr(i, 25000));
  std::vector<Ids> parallel(chunks.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < chunks.size(); ++i)
    threads.emplace_back([&, i] { parallel[i] = tokenizer->encode(chunks[i]); });
  for (auto& t : threads) t.join();
  const auto fresh = loadVocabAndMerges(requireData("tokenizers/gpt2/vocab.json"),
                                        requireData("tokenizers/gpt2/merges.txt"));
  for (size_t i = 0; i < chunks.size(); ++i) EXPECT_EQ(parallel[i], fresh->encode(chunks[i])) << i;
}

// Throughput on tinyshakespeare (1.1 MB), single thread; reported, and checked against a floor
// far below what a Release build does (about 2M tokens/s) so that only a real regression fails.
void measureEncodeSpeed(const Tokenizer& tokenizer, const std::string& name) {
  const std::string corpus = readBinary(requireData("corpora/tinyshakespeare.txt"));
  ASSERT_FALSE(corpus.empty());
  tokenizer.encode(corpus.substr(0, 10000));  // build the regex JIT and a little cache
  const auto start = std::chrono::steady_clock::now();
  const Ids ids = tokenizer.encode(corpus);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double perSecond = static_cast<double>(ids.size()) / seconds;
  std::cout << "[ info ] " << name << ": " << ids.size() << " tokens in " << seconds
            << " s = " << perSecond / 1e6 << " M tokens/s\n";
  ::testing::Test::RecordProperty(name + "_tokens_per_second", static_cast<int>(perSecond));
  EXPECT_GT(perSecond, 2e5);
  EXPECT_EQ(tokenizer.decode(ids), corpus);
}

TEST(TokenizerSpeed, Gpt2EncodesTinyShakespeare) {
  measureEncodeSpeed(*loadVocabAndMerges(requireData("tokenizers/gpt2/vocab.json"),
                                         requireData("tokenizers/gpt2/merges.txt")),
                     "gpt2");
}

TEST(TokenizerSpeed, Llama3EncodesTinyShakespeare) {
  measureEncodeSpeed(*loadTiktoken(requireData("tokenizers/llama3/tokenizer.model")), "llama3");
}

}  // namespace
}  // namespace strata::tokenizer
