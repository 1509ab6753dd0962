// Diversity of generated text: word- and token-level per-text distinct-n products, checked
// against counts worked out by hand.

#include "recipes/sample_quality.h"

#include <gtest/gtest.h>

namespace strata::recipes {
namespace {

TEST(SampleQuality, SplitsWordsOnAnyWhitespaceRun) {
  EXPECT_EQ(whitespaceWords("  the cat\tsat\n\non  "),
            (std::vector<std::string>{"the", "cat", "sat", "on"}));
  EXPECT_TRUE(whitespaceWords(" \n\t").empty());
}

TEST(SampleQuality, WordDiversityOfTextWithoutRepeatsIsOne) {
  EXPECT_DOUBLE_EQ(wordDiversity({"a b c d e f"}), 1.0);
}

TEST(SampleQuality, WordDiversityCountsRepeatsWithinEachText) {
  // "a b a b a b": 2-grams ab ba ab ba ab → 2/5; 3-grams aba bab aba bab → 2/4;
  // 4-grams abab baba abab → 2/3.
  EXPECT_NEAR(wordDiversity({"a b a b a b"}), (2.0 / 5) * (2.0 / 4) * (2.0 / 3), 1e-12);
}

TEST(SampleQuality, IdenticalTextsAreNotPenalisedAgainstEachOther) {
  // Per-text counts: two copies of a repeat-free text stay at 1 (a pooled set would give 1/2³).
  EXPECT_DOUBLE_EQ(wordDiversity({"one two three four five", "one two three four five"}), 1.0);
}

TEST(SampleQuality, CountsAreSummedOverTextsBeforeDividing) {
  // Text 1: "x x x x" → 2-grams 1/3, 3-grams 1/2, 4-grams 1/1.
  // Text 2: "p q r s" → 2-grams 3/3, 3-grams 2/2, 4-grams 1/1.
  // Σ: (1+3)/(3+3) · (1+2)/(2+2) · (1+1)/(1+1) = 4/6 · 3/4 · 1.
  EXPECT_NEAR(wordDiversity({"x x x x", "p q r s"}), (4.0 / 6) * (3.0 / 4), 1e-12);
}

TEST(SampleQuality, DiversityIsZeroWithoutFourGrams) {
  EXPECT_DOUBLE_EQ(wordDiversity({"too short"}), 0.0);
  EXPECT_DOUBLE_EQ(tokenDiversity({{1, 2, 3}}), 0.0);
}

TEST(SampleQuality, TokenDiversityUsesTheSameCounts) {
  EXPECT_NEAR(tokenDiversity({{7, 8, 7, 8, 7, 8}}), (2.0 / 5) * (2.0 / 4) * (2.0 / 3), 1e-12);
  EXPECT_DOUBLE_EQ(tokenDiversity({{1, 2, 3, 4}, {1, 2, 3, 4}}), 1.0);
}

}  // namespace
}  // namespace strata::recipes
