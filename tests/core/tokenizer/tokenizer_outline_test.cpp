// parseTokenizerOutline and readTokenizerJson (core/tokenizer/bpe_tables_json.h): the tree of a
// tokenizer.json without model.vocab and model.merges, built as the text streams by. It must be
// exactly what a plain parse gives with those two keys erased, whatever else the file holds.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tokenizer/bpe_tables_json.h"

namespace strata::tokenizer {
namespace {

using Json = nlohmann::json;

/** A tokenizer.json with every kind of JSON value, and many added tokens (objects in an array,
 *  the shape GGUF tokenizers fill with ~100,000 entries). */
Json everyKindOfValue() {
  Json root;
  root["version"] = "1.0";
  root["truncation"] = nullptr;
  root["added_tokens"] = Json::array();
  for (int i = 0; i < 3000; ++i)
    root["added_tokens"].push_back({{"id", 1000 + i},
                                    {"content", "<|reserved_" + std::to_string(i) + "|>"},
                                    {"special", i % 2 == 0},
                                    {"lstrip", false},
                                    {"weights", Json::array({0.5 * i, -1, Json::array()})}});
  root["normalizer"] = {{"type", "Sequence"},
                        {"normalizers", Json::array({{{"type", "NFC"}}, Json::object()})}};
  root["pre_tokenizer"] = {{"type", "ByteLevel"}, {"vocab", "a key named vocab, skipped"}};
  root["decoder"] = {{"merges", Json::array({1, 2})},
                     {"big", 18446744073709551615ull},
                     {"negative", -42},
                     {"text", "é ▁ \u00e9 \\ \""}};
  Json vocab = Json::object();
  for (int i = 0; i < 500; ++i) vocab["t" + std::to_string(i)] = i;
  Json merges = Json::array();
  for (int i = 0; i < 300; ++i) merges.push_back(Json::array({"t" + std::to_string(i), "x"}));
  root["model"] = {{"type", "BPE"},
                   {"vocab", vocab},
                   {"merges", merges},
                   {"deeper", {{"vocab", 3}, {"merges", Json::array({"kept"})}}},
                   {"dropout", nullptr}};
  return root;
}

TEST(TokenizerOutline, IsThePlainParseWithoutTheVocabularyAndMerges) {
  const Json root = everyKindOfValue();
  Json want = root;
  // The keys named vocab and merges in the root's objects go; deeper ones stay.
  want["model"].erase("vocab");
  want["model"].erase("merges");
  want["pre_tokenizer"].erase("vocab");
  want["decoder"].erase("merges");
  for (const int indent : {-1, 2}) {
    const Json got = parseTokenizerOutline(root.dump(indent));
    EXPECT_EQ(got, want) << "indent " << indent;
    EXPECT_EQ(got["model"]["deeper"]["vocab"], 3);
    EXPECT_EQ(got["added_tokens"].size(), 3000u);
  }
}

// The loader reads both parts in one pass (readTokenizerJson): the same outline, and every token
// and merge pair with its strings intact although both handlers see every event.
TEST(TokenizerOutline, OnePassGivesTheOutlineAndTheTables) {
  const std::string text = everyKindOfValue().dump();
  const TokenizerJsonText read = readTokenizerJson(text);
  EXPECT_EQ(read.outline, parseTokenizerOutline(text));
  EXPECT_EQ(read.tables.vocabType, "object");
  ASSERT_EQ(read.tables.vocab.size(), 500u);
  EXPECT_FALSE(read.tables.firstBadId);
  for (const auto& [token, id] : read.tables.vocab) EXPECT_EQ(token, "t" + std::to_string(id));
  EXPECT_EQ(read.tables.mergesType, "array");
  ASSERT_EQ(read.tables.merges.size(), 300u);
  for (size_t i = 0; i < read.tables.merges.size(); ++i) {
    const MergeEntry& merge = read.tables.merges[i];
    EXPECT_EQ(merge.kind, MergeEntry::Kind::Pair);
    EXPECT_EQ(merge.left, "t" + std::to_string(i));
    EXPECT_EQ(merge.right, "x");
  }
}

TEST(TokenizerOutline, KeepsTheLastOfARepeatedKeyAndReadsNonObjectRoots) {
  EXPECT_EQ(parseTokenizerOutline(R"({"a": 1, "a": {"b": [2]}, "model": {"vocab": {}}})"),
            Json::parse(R"({"a": {"b": [2]}, "model": {}})"));
  EXPECT_EQ(parseTokenizerOutline(R"([{"a": [1, {}]}, 2])"), Json::parse(R"([{"a": [1, {}]}, 2])"));
  EXPECT_EQ(parseTokenizerOutline("7"), Json(7));
}

TEST(TokenizerOutline, RefusesTextThatIsNotJson) {
  const std::string whole = everyKindOfValue().dump();
  EXPECT_THROW(parseTokenizerOutline(whole.substr(0, whole.size() / 2)), Json::parse_error);
  EXPECT_THROW(parseTokenizerOutline(R"({"model": {"vocab": [1, }})"), Json::parse_error);
}

}  // namespace
}  // namespace strata::tokenizer
