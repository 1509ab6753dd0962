// llama2.c's tokenizer.bin (stories260K's tok512.bin): ids checked against an independent,
// naive Python transcription of run.c's encode (tests/python/llama2c_tokenize_reference.py),
// and decode(encode(s)) == s.

#include <gtest/gtest.h>

#include <memory>

#include "common/error.h"
#include "support/temp_dir.h"
#include "support/tokenizer_test_support.h"
#include "tokenizer/tokenizer.h"

namespace strata::testing {}  // namespace strata::testing

namespace strata::tokenizer {

namespace {

using namespace strata::testing;
using Ids = std::vector<int32_t>;

std::filesystem::path tok512() { return sharedData("models/stories260K/tok512.bin"); }

std::shared_ptr<const Tokenizer> stories() {
  static const std::shared_ptr<const Tokenizer> tokenizer = loadLlama2cTokenizer(tok512());
  return tokenizer;
}

// Produced by `python3 tests/python/llama2c_tokenize_reference.py` (no BOS).
const std::vector<std::pair<std::string, Ids>> kReferenceCases = {
    {"Once upon a time, there was a little girl named Lily.",
     {403, 407, 261, 378, 432, 383, 286, 261, 376, 298, 315, 421, 395, 317, 426}},
    {"She liked to play outside in the sun.",
     {338, 397, 355, 267, 337, 410, 408, 419, 292, 411, 322, 265, 262, 379, 426}},
    {"Tom and Sue went to the park. They saw a big dog!",
     {274, 287, 269, 301, 425, 411, 263, 377, 267, 265, 282,
      295, 433, 426, 342, 394, 261, 370, 400, 428, 443}},
    {"caf\xC3\xA9 na\xC3\xAFve \xE2\x80\x94 \xE4\xBD\xA0\xE5\xA5\xBD",
     {280, 412, 431, 485, 297, 412, 198, 178, 360, 410, 481, 410, 231, 192, 163, 232, 168, 192}},
    {"  two leading spaces and\x09tab\x0Anewline",
     {410, 410, 259, 424, 414, 278, 411, 380, 299, 262, 427, 412, 331,
      419, 269, 12,  413, 412, 430, 13,  416, 411, 424, 421, 271, 411}},
};

TEST(TokenizerLlama2c, LoadsTok512) {
  ASSERT_TRUE(std::filesystem::exists(tok512())) << "missing test data file: " << tok512();
  EXPECT_EQ(stories()->vocabSize(), 512);
  EXPECT_EQ(stories()->bosId(), 1);
  EXPECT_EQ(stories()->eosId(), 2);
  EXPECT_EQ(stories()->tokenText(1), "<s>");
  EXPECT_EQ(stories()->tokenText(3 + 0x41), "<0x41>");
  EXPECT_EQ(stories()->tokenId(" the"), 265);  // export.py stored "▁the" as " the"
  EXPECT_EQ(stories()->tokenId("<s>"), 1);
}

TEST(TokenizerLlama2c, EncodesLikeTheReferenceTranscriptionOfRunC) {
  ASSERT_TRUE(std::filesystem::exists(tok512())) << "missing test data file: " << tok512();
  for (size_t i = 0; i < kReferenceCases.size(); ++i)
    EXPECT_EQ(stories()->encode(kReferenceCases[i].first), kReferenceCases[i].second)
        << "case " << i << " " << quoted(kReferenceCases[i].first);
}

TEST(TokenizerLlama2c, BosComesFirstAndIsDroppedWithItsSpaceOnDecode) {
  ASSERT_TRUE(std::filesystem::exists(tok512())) << "missing test data file: " << tok512();
  const std::string text = kReferenceCases[0].first;
  Ids withBos = kReferenceCases[0].second;
  withBos.insert(withBos.begin(), 1);
  EXPECT_EQ(stories()->encode(text, true), withBos);
  EXPECT_EQ(stories()->decode(withBos, true), text);
  EXPECT_EQ(stories()->decode(withBos), "<s>" + text);
  EXPECT_TRUE(stories()->encode("").empty());
}

TEST(TokenizerLlama2c, DecodeOfEncodeGivesPlainEnglishBack) {
  const auto path = sharedData("corpora/tinyshakespeare.txt");
  ASSERT_TRUE(std::filesystem::exists(path)) << "missing test data file: " << path;
  const std::string corpus = readBinary(path).substr(0, 20000);
  for (const std::string& text :
       {std::string("Lily and Ben were friends. They liked to play with a red ball."),
        std::string(" leading space"), std::string("Tabs\tand\nnewlines\n"),
        std::string("caf\xC3\xA9 \xE4\xBD\xA0\xE5\xA5\xBD"), corpus}) {
    const Ids ids = stories()->encode(text);
    EXPECT_EQ(stories()->decode(ids), text) << quoted(text.substr(0, 80));
    EXPECT_LT(ids.size(), text.size() + 2);
  }
}

TEST(TokenizerLlama2c, TruncatedFileIsAFormatError) {
  ASSERT_TRUE(std::filesystem::exists(tok512())) << "missing test data file: " << tok512();
  TempDir dir;
  const std::string bytes = readBinary(tok512());
  writeBinary(dir / "tokenizer.bin", bytes.substr(0, bytes.size() - 3));
  try {
    loadTokenizer(dir.path());
    ADD_FAILURE() << "no error";
  } catch (const FormatError& e) {
    EXPECT_EQ(e.file(), dir / "tokenizer.bin");
    EXPECT_EQ(e.item(), "511") << e.what();
  }
}

}  // namespace
}  // namespace strata::tokenizer
