// The building blocks under the tokenizers: GPT-2's byte ↔ character map, PCRE2 splitting with
// HF's delimiter behaviours and the GPT-2 / Llama-3 regexes, NFC, and byte-fallback decoding.

#include <gtest/gtest.h>

#include <set>

#include "tokenizer/byte_level.h"
#include "tokenizer/decoder.h"
#include "tokenizer/normalizer.h"
#include "tokenizer/pre_tokenizer.h"
#include "tokenizer/split_pattern.h"

namespace strata::tokenizer {

namespace {

using Pieces = std::vector<std::string>;

Pieces split(std::string_view text, const SplitPattern& pattern, SplitBehavior behavior,
             bool invert = false) {
  Pieces pieces;
  for (const TextSpan& s : splitText(text, pattern, behavior, invert))
    pieces.emplace_back(text.substr(s.begin, s.end - s.begin));
  return pieces;
}

TEST(TokenizerByteLevel, MapsBytesLikeGpt2BytesToUnicode) {
  EXPECT_EQ(byte_level::codepointOfByte(' '), U'\u0120');   // Ġ
  EXPECT_EQ(byte_level::codepointOfByte('\n'), U'\u010A');  // Ċ
  EXPECT_EQ(byte_level::codepointOfByte('!'), U'!');
  EXPECT_EQ(byte_level::codepointOfByte(0xAD), U'\u0143');  // the last of the 68 remapped
  std::set<char32_t> seen;
  std::string all;
  for (int b = 0; b < 256; ++b) {
    seen.insert(byte_level::codepointOfByte(static_cast<uint8_t>(b)));
    all += static_cast<char>(b);
  }
  EXPECT_EQ(seen.size(), 256u);
  EXPECT_EQ(byte_level::decode(byte_level::encode(all)), all);
  EXPECT_FALSE(byte_level::decode("\u4f60").has_value());
}

TEST(TokenizerSplit, DelimiterBehavioursMatchHuggingFaceDocs) {
  // The example of HF's SplitDelimiterBehavior documentation.
  const auto dash = SplitPattern::literal("-");
  const std::string text = "the-final--countdown";
  EXPECT_EQ(split(text, dash, SplitBehavior::Removed), (Pieces{"the", "final", "countdown"}));
  EXPECT_EQ(split(text, dash, SplitBehavior::Isolated),
            (Pieces{"the", "-", "final", "-", "-", "countdown"}));
  EXPECT_EQ(split(text, dash, SplitBehavior::MergedWithPrevious),
            (Pieces{"the-", "final-", "-", "countdown"}));
  EXPECT_EQ(split(text, dash, SplitBehavior::MergedWithNext),
            (Pieces{"the", "-final", "-", "-countdown"}));
  EXPECT_EQ(split(text, dash, SplitBehavior::Contiguous),
            (Pieces{"the", "-", "final", "--", "countdown"}));
}

TEST(TokenizerSplit, InvertKeepsTheMatches) {
  // HF's Whitespace pre-tokenizer: Removed + invert on \w+|[^\w\s]+.
  EXPECT_EQ(
      split("hi, there", SplitPattern::regex(R"(\w+|[^\w\s]+)"), SplitBehavior::Removed, true),
      (Pieces{"hi", ",", "there"}));
}

TEST(TokenizerSplit, Gpt2RegexLeavesOneSpaceForTheNextWord) {
  const auto gpt2 = SplitPattern::regex(std::string(kGpt2Pattern));
  EXPECT_EQ(split("Hello   world's 123!!", gpt2, SplitBehavior::Isolated),
            (Pieces{"Hello", "  ", " world", "'s", " 123", "!!"}));
  EXPECT_EQ(split("a\n\n b", gpt2, SplitBehavior::Isolated), (Pieces{"a", "\n\n", " b"}));
}

TEST(TokenizerSplit, Llama3RegexIsCaseInsensitiveForContractionsAndGroupsDigitsByThree) {
  const auto llama3 = SplitPattern::regex(std::string(kLlama3Pattern));
  EXPECT_EQ(split("HE'S 12345", llama3, SplitBehavior::Isolated),
            (Pieces{"HE", "'S", " ", "123", "45"}));
  EXPECT_EQ(split("x\r\n\r\n  y", llama3, SplitBehavior::Isolated),
            (Pieces{"x", "\r\n\r\n", " ", " y"}));
}

TEST(TokenizerSplit, UnicodeClassesApplyBeyondAscii) {
  const auto gpt2 = SplitPattern::regex(std::string(kGpt2Pattern));
  // \p{L} covers Cyrillic and CJK; U+3000 is whitespace under UCP.
  EXPECT_EQ(split("\u043d\u0435\u0449\u043e\u3000\u4f60\u597d", gpt2, SplitBehavior::Isolated),
            (Pieces{"\u043d\u0435\u0449\u043e", "\u3000", "\u4f60\u597d"}));
}

TEST(TokenizerSplit, SurvivesInvalidUtf8AndEmptyMatches) {
  const auto gpt2 = SplitPattern::regex(std::string(kGpt2Pattern));
  const std::string text = "ab\xFF\xFE cd";
  std::string joined;
  for (const auto& piece : split(text, gpt2, SplitBehavior::Isolated)) joined += piece;
  EXPECT_EQ(joined, text);
  EXPECT_EQ(split("abc", SplitPattern::regex("x*"), SplitBehavior::Isolated), Pieces{"abc"});
}

TEST(TokenizerSplit, BadRegexThrowsWithPcre2sMessage) {
  EXPECT_THROW(SplitPattern::regex("(unclosed"), std::invalid_argument);
}

TEST(TokenizerNormalizer, NfcComposesAndKeepsInvalidBytes) {
  const UnicodeNormalizer nfc(UnicodeNormalizer::Form::NFC);
  EXPECT_EQ(nfc.normalize("e\u0301"), "\u00e9");
  EXPECT_EQ(nfc.normalize("e\u0301\xFF"
                          "e\u0301"),
            "\u00e9\xFF\u00e9");
  EXPECT_EQ(UnicodeNormalizer(UnicodeNormalizer::Form::NFD).normalize("\u00e9"), "e\u0301");
}

TEST(TokenizerDecoder, ByteFallbackJoinsByteRunsAndKeepsInvalidBytes) {
  std::vector<std::string> tokens = {"a", "<0xC3>", "<0xA9>", "<0xFF>", "b", "<0x4g>"};
  ByteFallbackDecoder().decodeChain(tokens);
  EXPECT_EQ(tokens, (std::vector<std::string>{"a", "\u00e9\xFF", "b", "<0x4g>"}));
}

TEST(TokenizerDecoder, StripRemovesOnlyTheRequestedCount) {
  std::vector<std::string> tokens = {"  hi ", " x"};
  StripDecoder(" ", 1, 1).decodeChain(tokens);
  EXPECT_EQ(tokens, (std::vector<std::string>{" hi", "x"}));
}

}  // namespace
}  // namespace strata::tokenizer
