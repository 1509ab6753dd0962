// SentencePiece tokenizer.model files read through libsentencepiece (tokenizer/
// sentencepiece_tokenizer.h): special ids, piece lookups, the BOS template, decode's byte
// fallback and dummy prefix, and the errors for files that are not SentencePiece models.
// Agreement with Python's sentencepiece on many texts is HfTokenizerReference's job.

#include <gtest/gtest.h>

#include <stdexcept>

#include "common/error.h"
#include "support/temp_dir.h"
#include "support/tokenizer_test_support.h"
#include "tokenizer/sentencepiece_tokenizer.h"

namespace strata::tokenizer {

namespace {

using namespace strata::testing;
namespace fs = std::filesystem;
using Ids = std::vector<int32_t>;

fs::path tok512() {
  const fs::path path = sharedData("models/stories260K/tok512.model");
  if (!fs::exists(path)) ADD_FAILURE() << "missing test data file: " << path;
  return path;
}

TEST(TokenizerSentencePiece, Tok512HasLlama2SpecialIdsAndPieces) {
  const auto tokenizer = loadSentencePiece(tok512());
  EXPECT_EQ(tokenizer->specialIds().unk, 0);
  EXPECT_EQ(tokenizer->bosId(), 1);
  EXPECT_EQ(tokenizer->eosId(), 2);
  EXPECT_FALSE(tokenizer->padId().has_value());  // trained with pad_id -1
  EXPECT_EQ(tokenizer->tokenText(1), "<s>");
  EXPECT_EQ(tokenizer->tokenId("</s>"), 2);
  EXPECT_EQ(tokenizer->tokenText(3), "<0x00>");  // byte fallback pieces at 3..258
  EXPECT_FALSE(tokenizer->tokenId("no such piece").has_value());
  EXPECT_TRUE(tokenizer->isSpecial(0));
  EXPECT_TRUE(tokenizer->isSpecial(1));
  EXPECT_FALSE(tokenizer->isSpecial(3));
  EXPECT_FALSE(tokenizer->isSpecial(300));
  EXPECT_THROW(tokenizer->tokenText(512), std::out_of_range);
  EXPECT_THROW(tokenizer->decode(Ids{512}), std::out_of_range);
}

TEST(TokenizerSentencePiece, AddsBosOnlyWithSpecialTokensAndDecodesBack) {
  const auto tokenizer = loadSentencePiece(tok512());
  const Ids plain = tokenizer->encode("Once upon a time");
  const Ids withBos = tokenizer->encode("Once upon a time", true);
  ASSERT_FALSE(plain.empty());
  EXPECT_EQ(withBos.front(), 1);
  EXPECT_EQ(Ids(withBos.begin() + 1, withBos.end()), plain);
  EXPECT_EQ(tokenizer->tokenText(plain.front()).substr(0, 3), "\xE2\x96\x81");  // dummy prefix "▁"
  EXPECT_EQ(tokenizer->decode(plain), "Once upon a time");
  EXPECT_EQ(tokenizer->decode(withBos), "<s>Once upon a time");
  EXPECT_EQ(tokenizer->decode(withBos, true), "Once upon a time");
}

TEST(TokenizerSentencePiece, ByteFallbackDecodesRawBytesEvenOneIdAtATime) {
  const auto tokenizer = loadSentencePiece(tok512());
  const std::string emoji = "\xF0\x9F\x91\x8D";  // 👍, not among tok512's 512 pieces
  const Ids ids = tokenizer->encode("a" + emoji);
  ASSERT_GE(ids.size(), 4u);
  std::string oneByOne;
  for (const int32_t id : ids) oneByOne += tokenizer->decode(Ids{id});
  // libsentencepiece's own decode would give U+FFFD for each lone byte; Strata keeps them.
  EXPECT_EQ(oneByOne.substr(oneByOne.size() - 4), emoji);
  EXPECT_EQ(tokenizer->decode(ids), "a" + emoji);
}

/** loadTokenizer on a folder whose tokenizer.model holds `content`: the FormatError it throws. */
std::string formatErrorFor(const std::string& content) {
  TempDir dir;
  writeBinary(dir / "tokenizer.model", content);
  try {
    loadTokenizer(dir.path());
  } catch (const FormatError& e) {
    EXPECT_EQ(e.file(), dir / "tokenizer.model");
    const std::string message = e.what();
    EXPECT_NE(message.find((dir / "tokenizer.model").string()), std::string::npos) << message;
    EXPECT_NE(message.find("SentencePiece model"), std::string::npos) << message;
    EXPECT_NE(message.find("truncated or corrupt"), std::string::npos) << message;
    return message;
  }
  ADD_FAILURE() << "no FormatError for a tokenizer.model of " << content.size() << " bytes";
  return {};
}

TEST(TokenizerSentencePiece, TruncatedModelIsAFormatErrorNamingTheFile) {
  const std::string model = readBinary(tok512());
  ASSERT_GT(model.size(), 1000u);
  const std::string message = formatErrorFor(model.substr(0, 1000));
  // The library's own wording of a parse failure is a source line; ours says it plainly.
  EXPECT_EQ(message.find("sentencepiece_processor.cc"), std::string::npos) << message;
  EXPECT_NE(message.find("do not parse"), std::string::npos) << message;
}

TEST(TokenizerSentencePiece, FilesThatAreNotModelsAreFormatErrorsNamingTheFile) {
  formatErrorFor("");  // parses as an empty ModelProto
  formatErrorFor("this is plain text, not a model\n");
  formatErrorFor(std::string("\x0A\x02\x0A\x00", 4));  // one piece with an empty text
}

TEST(TokenizerSentencePiece, MissingFileIsAnIoError) {
  EXPECT_THROW(loadSentencePiece("/nonexistent/tokenizer.model"), IoError);
}

}  // namespace
}  // namespace strata::tokenizer
