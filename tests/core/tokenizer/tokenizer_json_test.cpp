// Tiny tokenizer.json files written by the tests, one HF feature each: NFC, byte fallback with
// Metaspace, added tokens, ignore_merges, both merges spellings, templates, and errors that
// name the file and the key.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "support/temp_dir.h"
#include "support/tokenizer_test_support.h"
#include "tokenizer/byte_level.h"
#include "tokenizer/tokenizer.h"

namespace strata::testing {}  // namespace strata::testing

namespace strata::tokenizer {

namespace {

using namespace strata::testing;
using Json = nlohmann::json;
using Ids = std::vector<int32_t>;

std::unique_ptr<Tokenizer> loadJson(const TempDir& dir, const Json& root) {
  writeBinary(dir / "tokenizer.json", root.dump());
  return loadTokenizerJson(dir / "tokenizer.json");
}

// A byte-level model whose ids 0..255 are the byte-level characters of bytes 0..255.
Json byteLevelVocab() {
  Json vocab = Json::object();
  for (int b = 0; b < 256; ++b) vocab[byte_level::encode(std::string(1, static_cast<char>(b)))] = b;
  return vocab;
}

// ["a", "b"] merges; spelled out because nlohmann reads {{"a", "b"}} as an object.
Json pairs(std::initializer_list<std::pair<std::string, std::string>> merges) {
  Json list = Json::array();
  for (const auto& [left, right] : merges) list.push_back(Json::array({left, right}));
  return list;
}

int32_t byteId(char c) { return static_cast<unsigned char>(c); }

Json byteLevelTokenizer(Json vocab, Json merges) {
  return {
      {"model", {{"type", "BPE"}, {"vocab", std::move(vocab)}, {"merges", std::move(merges)}}},
      {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}}},
      {"decoder", {{"type", "ByteLevel"}}}};
}

// Llama-2 style: <unk> <s> </s>, <0x00>..<0xFF> at 3..258, then "▁"-prefixed pieces.
Json llama2Vocab() {
  Json vocab = {{"<unk>", 0}, {"<s>", 1}, {"</s>", 2}};
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    vocab[name] = 3 + b;
  }
  int id = 259;
  for (const char* piece :
       {"\u2581", "h", "e", "l", "o", "w", "r", "d", "\u2581h", "\u2581he", "ll", "\u2581hell",
        "\u2581hello", "\u2581w", "or", "\u2581wor", "\u2581worl", "\u2581world"})
    vocab[piece] = id++;
  return vocab;
}
constexpr int32_t kHelloId = 271, kWorldId = 276, kWId = 272;

Json llama2Merges() {
  return {"\u2581 h", "\u2581h e", "l l",        "\u2581he ll", "\u2581hell o",
          "\u2581 w", "o r",       "\u2581w or", "\u2581wor l", "\u2581worl d"};
}

// HF's conversion of Llama-2 (legacy): Prepend + Replace normalizer, no pre-tokenizer,
// Replace/ByteFallback/Fuse/Strip decoder, <s> template.
Json llama2Tokenizer(bool byteFallback = true, bool fuseUnk = false) {
  return {{"added_tokens",
           {{{"id", 0}, {"content", "<unk>"}, {"special", true}, {"normalized", false}},
            {{"id", 1}, {"content", "<s>"}, {"special", true}, {"normalized", false}},
            {{"id", 2}, {"content", "</s>"}, {"special", true}, {"normalized", false}}}},
          {"normalizer",
           {{"type", "Sequence"},
            {"normalizers",
             {{{"type", "Prepend"}, {"prepend", "\u2581"}},
              {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "\u2581"}}}}}},
          {"pre_tokenizer", nullptr},
          {"post_processor",
           {{"type", "TemplateProcessing"},
            {"single",
             {{{"SpecialToken", {{"id", "<s>"}, {"type_id", 0}}}},
              {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}}},
            {"special_tokens", {{"<s>", {{"id", "<s>"}, {"ids", {1}}, {"tokens", {"<s>"}}}}}}}},
          {"decoder",
           {{"type", "Sequence"},
            {"decoders",
             {{{"type", "Replace"}, {"pattern", {{"String", "\u2581"}}}, {"content", " "}},
              {{"type", "ByteFallback"}},
              {{"type", "Fuse"}},
              {{"type", "Strip"}, {"content", " "}, {"start", 1}, {"stop", 0}}}}}},
          {"model",
           {{"type", "BPE"},
            {"unk_token", "<unk>"},
            {"byte_fallback", byteFallback},
            {"fuse_unk", fuseUnk},
            {"vocab", llama2Vocab()},
            {"merges", llama2Merges()}}}};
}

TEST(TokenizerJson, NfcComposesBeforeMerging) {
  // Qwen style: NFC, then the regex split, then byte-level. "e" + U+0301 must become "é"
  // (C3 A9, byte-level "Ã©") and merge into the single token "café".
  Json vocab = {{"c", 0},
                {"a", 1},
                {"f", 2},
                {"\u00C3", 3},
                {"\u00A9", 4},
                {"ca", 5},
                {"caf", 6},
                {"\u00C3\u00A9", 7},
                {"caf\u00C3\u00A9", 8}};
  Json root = {
      {"normalizer", {{"type", "NFC"}}},
      {"pre_tokenizer",
       {{"type", "Sequence"},
        {"pretokenizers",
         {{{"type", "Split"},
           {"pattern",
            {{"Regex",
              R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)"}}},
           {"behavior", "Isolated"},
           {"invert", false}},
          {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}}}}}},
      {"decoder", {{"type", "ByteLevel"}}},
      {"model",
       {{"type", "BPE"},
        {"vocab", vocab},
        {"merges", {"c a", "ca f", "\u00C3 \u00A9", "caf \u00C3\u00A9"}}}}};
  TempDir dir;
  const auto tokenizer = loadJson(dir, root);
  EXPECT_EQ(tokenizer->encode("cafe\u0301"), Ids{8});
  EXPECT_EQ(tokenizer->encode("caf\u00E9"), Ids{8});
  EXPECT_EQ(tokenizer->decode(Ids{8}), "caf\u00E9");
}

TEST(TokenizerJson, Llama2StyleMergesAcrossThePrependedMetaspace) {
  TempDir dir;
  const auto tokenizer = loadJson(dir, llama2Tokenizer());
  EXPECT_EQ(tokenizer->encode("hello world"), (Ids{kHelloId, kWorldId}));
  EXPECT_EQ(tokenizer->encode("hello world", true), (Ids{1, kHelloId, kWorldId}));
  EXPECT_EQ(tokenizer->decode(Ids{1, kHelloId, kWorldId}, true), "hello world");
  EXPECT_EQ(tokenizer->bosId(), 1);
  EXPECT_EQ(tokenizer->specialIds().unk, 0);
}

TEST(TokenizerJson, ByteFallbackSpellsUnknownCharactersAsByteTokensAndDecodesThemBack) {
  TempDir dir;
  const auto tokenizer = loadJson(dir, llama2Tokenizer());
  // "ö" = C3 B6 is not in the vocabulary: <0xC3> = 3 + 0xC3, <0xB6> = 3 + 0xB6.
  const Ids ids = tokenizer->encode("hello w\u00F6rld");
  EXPECT_EQ(ids, (Ids{kHelloId, kWId, 3 + 0xC3, 3 + 0xB6, 265, 262, 266}));
  EXPECT_EQ(tokenizer->tokenText(3 + 0xC3), "<0xC3>");
  EXPECT_EQ(tokenizer->decode(ids), "hello w\u00F6rld");
}

TEST(TokenizerJson, UnknownCharactersBecomeUnkAndFuseWhenAsked) {
  TempDir dir;
  // "é" and "!" are neither in the vocabulary nor byte-fallback-able here.
  EXPECT_EQ(loadJson(dir, llama2Tokenizer(false, false))->encode("h\u00E9!"), (Ids{267, 0, 0}));
  EXPECT_EQ(loadJson(dir, llama2Tokenizer(false, true))->encode("h\u00E9!"), (Ids{267, 0}));
}

TEST(TokenizerJson, MetaspacePrependSchemeFirstSkipsTextAfterASpecialToken) {
  Json root = llama2Tokenizer();
  root["normalizer"] = nullptr;
  root["pre_tokenizer"] = {{"type", "Metaspace"},
                           {"replacement", "\u2581"},
                           {"prepend_scheme", "first"},
                           {"split", true}};
  root["decoder"] = {{"type", "Sequence"},
                     {"decoders",
                      {{{"type", "ByteFallback"}},
                       {{"type", "Metaspace"},
                        {"replacement", "\u2581"},
                        {"prepend_scheme", "first"},
                        {"split", true}}}}};
  TempDir dir;
  const auto tokenizer = loadJson(dir, root);
  EXPECT_EQ(tokenizer->encode("hello world"), (Ids{kHelloId, kWorldId}));
  // HF: "first" prepends only to the piece at offset 0, not to text after "<s>".
  EXPECT_EQ(tokenizer->encode("<s>hello"), (Ids{1, 260, 261, 269, 263}));
  const Ids ids = tokenizer->encode("hello w\u00F6rld");
  EXPECT_EQ(tokenizer->decode(ids), "hello w\u00F6rld");
}

TEST(TokenizerJson, AddedTokensAreSplitOutBeforePreTokenizing) {
  Json root = byteLevelTokenizer(byteLevelVocab(), Json::array());
  root["added_tokens"] = {
      {{"id", 300}, {"content", "<|eot|>"}, {"special", true}, {"normalized", false}},
      {{"id", 301}, {"content", "<mask>"}, {"special", true}, {"lstrip", true}},
      {{"id", 302}, {"content", "[w]"}, {"special", false}, {"single_word", true}},
      {{"id", 303}, {"content", "<r>"}, {"special", true}, {"rstrip", true}}};
  TempDir dir;
  const auto tokenizer = loadJson(dir, root);
  const Ids hi = tokenizer->encode("hi");
  const Ids there = tokenizer->encode("there");
  Ids expected = hi;
  expected.push_back(300);
  expected.insert(expected.end(), there.begin(), there.end());
  EXPECT_EQ(tokenizer->encode("hi<|eot|>there"), expected);
  EXPECT_EQ(tokenizer->decode(expected), "hi<|eot|>there");
  EXPECT_EQ(tokenizer->decode(expected, true), "hithere");
  EXPECT_TRUE(tokenizer->isSpecial(300));
  EXPECT_FALSE(tokenizer->isSpecial(302));
  EXPECT_EQ(tokenizer->vocabSize(), 304);
  // lstrip swallows the space before "<mask>".
  EXPECT_EQ(tokenizer->encode("a <mask>"), (Ids{byteId('a'), 301}));
  // rstrip swallows the whitespace after "<r>".
  EXPECT_EQ(tokenizer->encode("<r> \t x"), (Ids{303, byteId('x')}));
  // single_word: only between non-word characters.
  EXPECT_EQ(tokenizer->encode("x [w] y"),
            (Ids{byteId('x'), byteId(' '), 302, byteId(' '), byteId('y')}));
  const Ids inWord = tokenizer->encode("x[w]y");
  EXPECT_EQ(std::count(inWord.begin(), inWord.end(), 302), 0);
}

// Thousands of added tokens sharing their first bytes, as a GGUF padded with reserved tokens
// has: the longest token at a position wins, a prefix of a token is no match, and "<unk>" in the
// text (WikiText is full of it) stays text.
TEST(TokenizerJson, ManyAddedTokensWithOneFirstByteMatchLongestFirst) {
  Json root = byteLevelTokenizer(byteLevelVocab(), Json::array());
  Json added = {{{"id", 300}, {"content", "<a>"}, {"special", true}, {"normalized", false}},
                {{"id", 301}, {"content", "<a>b"}, {"special", true}, {"normalized", false}},
                {{"id", 302}, {"content", "<a>bc"}, {"special", true}, {"normalized", false}}};
  for (int i = 0; i < 3000; ++i)
    added.push_back({{"id", 400 + i},
                     {"content", "<|reserved_special_token_" + std::to_string(i) + "|>"},
                     {"special", true},
                     {"normalized", false}});
  root["added_tokens"] = added;
  TempDir dir;
  const auto tokenizer = loadJson(dir, root);
  const auto bytes = [&](const std::string& text) { return tokenizer->encode(text); };
  EXPECT_EQ(bytes("<a>bc"), Ids{302});
  EXPECT_EQ(bytes("<a>bd"), (Ids{301, byteId('d')}));
  EXPECT_EQ(bytes("<a>x"), (Ids{300, byteId('x')}));
  Ids expected{byteId('x'), 400 + 1234, byteId('y'), 400 + 12};
  EXPECT_EQ(bytes("x<|reserved_special_token_1234|>y<|reserved_special_token_12|>"), expected);
  const Ids unk = bytes("<unk>");
  EXPECT_TRUE(std::none_of(unk.begin(), unk.end(), [](int64_t id) { return id >= 300; }));
  const Ids prefix = bytes("<|reserved_special_token_");
  EXPECT_TRUE(std::none_of(prefix.begin(), prefix.end(), [](int64_t id) { return id >= 300; }));
}

TEST(TokenizerJson, IgnoreMergesEmitsAWholeVocabularyPieceDirectly) {
  Json vocab = byteLevelVocab();
  vocab["ab"] = 256;
  vocab["abc"] = 257;  // reachable by no merge
  Json root = byteLevelTokenizer(vocab, {"a b"});
  TempDir dir;
  EXPECT_EQ(loadJson(dir, root)->encode("abc"), (Ids{256, byteId('c')}));
  root["model"]["ignore_merges"] = true;
  EXPECT_EQ(loadJson(dir, root)->encode("abc"), Ids{257});
  EXPECT_EQ(loadJson(dir, root)->encode("abd"), (Ids{256, byteId('d')}));
}

TEST(TokenizerJson, MergesAsStringsAndAsPairsGiveTheSameIds) {
  Json vocab = byteLevelVocab();
  vocab["ab"] = 256;
  vocab["abc"] = 257;
  vocab["\u0120abc"] = 258;
  TempDir dir;
  const auto fromStrings = loadJson(dir, byteLevelTokenizer(vocab, {"a b", "ab c", "\u0120 abc"}));
  const auto fromPairs =
      loadJson(dir, byteLevelTokenizer(vocab, pairs({{"a", "b"}, {"ab", "c"}, {"\u0120", "abc"}})));
  for (const char* text : {"abc", " abc abcab", "cab abc"})
    EXPECT_EQ(fromStrings->encode(text), fromPairs->encode(text)) << text;
  EXPECT_EQ(fromPairs->encode(" abc"), Ids{258});
}

TEST(TokenizerJson, PairMergesAllowSpacesInsideTokens) {
  // Only the pair form can say that "a " and "b" merge; "a  b" is three fields as a string.
  Json root = {{"model",
                {{"type", "BPE"},
                 {"vocab", {{"a", 0}, {" ", 1}, {"b", 2}, {"a ", 3}, {"a b", 4}}},
                 {"merges", pairs({{"a", " "}, {"a ", "b"}})}}}};
  TempDir dir;
  EXPECT_EQ(loadJson(dir, root)->encode("a b"), Ids{4});
  root["model"]["merges"] = {"a  ", "a  b"};
  EXPECT_THROW(loadJson(dir, root), FormatError);
}

// Loads `root` and returns the FormatError it must raise.
FormatError expectFormatError(const Json& root) {
  TempDir dir;
  try {
    loadJson(dir, root);
  } catch (const FormatError& e) {
    EXPECT_EQ(e.file(), dir / "tokenizer.json");
    EXPECT_NE(std::string(e.what()).find((dir / "tokenizer.json").string()), std::string::npos)
        << e.what();
    return e;
  }
  ADD_FAILURE() << "no FormatError for " << root.dump().substr(0, 200);
  return FormatError({}, {});
}

TEST(TokenizerJson, MissingVocabularyNamesFileAndKey) {
  const FormatError e =
      expectFormatError({{"model", {{"type", "BPE"}, {"merges", Json::array()}}}});
  EXPECT_EQ(e.item(), "model.vocab");
  EXPECT_NE(std::string(e.what()).find("model.vocab"), std::string::npos) << e.what();
}

TEST(TokenizerJson, MergeOfUnknownTokenNamesTheMergeIndex) {
  Json vocab = byteLevelVocab();
  vocab["ab"] = 256;
  const FormatError e = expectFormatError(byteLevelTokenizer(vocab, {"a b", "x zz"}));
  EXPECT_EQ(e.item(), "model.merges[1]");
  EXPECT_NE(e.problem().find("zz"), std::string::npos) << e.what();
}

// The vocabulary and merges are read by a streaming pass (bpe_tables_json.h), not from the
// tree: every malformed shape must still be refused with the key path it has in the tree.
TEST(TokenizerJson, MalformedVocabularyAndMergesNameTheirKeyPaths) {
  const auto itemOf = [](Json root) { return expectFormatError(root).item(); };
  Json vocab = byteLevelVocab();
  vocab["ab"] = 256;
  EXPECT_EQ(itemOf(byteLevelTokenizer(Json::array({"a", 0}), Json::array())), "model.vocab");
  Json badId = vocab;
  badId["ab"] = 2.5;
  EXPECT_EQ(itemOf(byteLevelTokenizer(badId, Json::array())), "model.vocab.ab");
  badId["ab"] = "256";
  EXPECT_EQ(itemOf(byteLevelTokenizer(badId, Json::array())), "model.vocab.ab");
  badId["ab"] = {{"id", 256}};
  EXPECT_EQ(itemOf(byteLevelTokenizer(badId, Json::array())), "model.vocab.ab");
  badId["ab"] = -1;
  EXPECT_EQ(itemOf(byteLevelTokenizer(badId, Json::array())), "ab");  // the token is named
  EXPECT_EQ(itemOf(byteLevelTokenizer(vocab, "a b")), "model.merges");
  EXPECT_EQ(itemOf(byteLevelTokenizer(vocab, Json::array({"a b", Json::array({"a", 7})}))),
            "model.merges[1][1]");
  EXPECT_EQ(itemOf(byteLevelTokenizer(vocab, Json::array({Json::array({"a", "b", "c"})}))),
            "model.merges[0]");
  EXPECT_EQ(itemOf(byteLevelTokenizer(vocab, Json::array({"a b", 3}))), "model.merges[1]");
  EXPECT_EQ(itemOf(byteLevelTokenizer(vocab, Json::array({Json::object({{"a", "b"}})}))),
            "model.merges[0]");
  EXPECT_EQ(itemOf(byteLevelTokenizer(vocab, Json::array({"ab"}))), "model.merges[0]");

  // Pairs and lines, nested containers elsewhere in the model, keys in any order: the same model.
  TempDir dir;
  Json asPairs = byteLevelTokenizer(vocab, Json::array({Json::array({"a", "b"})}));
  asPairs["model"]["extra"] = Json::array({Json::object({{"vocab", 1}})});
  EXPECT_EQ(loadJson(dir, asPairs)->encode("ab"), Ids{256});
  EXPECT_EQ(loadJson(dir, byteLevelTokenizer(vocab, Json::array({"a b"})))->encode("ab"), Ids{256});
}

TEST(TokenizerJson, BadRegexNamesThePatternKey) {
  Json root = byteLevelTokenizer(byteLevelVocab(), Json::array());
  root["pre_tokenizer"] = {
      {"type", "Sequence"},
      {"pretokenizers",
       {{{"type", "Split"}, {"pattern", {{"Regex", "(unclosed"}}}, {"behavior", "Isolated"}}}}};
  EXPECT_EQ(expectFormatError(root).item(), "pre_tokenizer.pretokenizers[0].pattern.Regex");
}

TEST(TokenizerJson, UnsupportedTypesNameTheirKey) {
  Json root = byteLevelTokenizer(byteLevelVocab(), Json::array());
  root["model"]["type"] = "WordPiece";
  EXPECT_EQ(expectFormatError(root).item(), "model.type");
  root = byteLevelTokenizer(byteLevelVocab(), Json::array());
  root["pre_tokenizer"] = {{"type", "BertPreTokenizer"}};
  EXPECT_EQ(expectFormatError(root).item(), "pre_tokenizer.type");
  root = byteLevelTokenizer(byteLevelVocab(), Json::array());
  root["model"]["byte_fallback"] = "yes";
  EXPECT_EQ(expectFormatError(root).item(), "model.byte_fallback");
}

TEST(TokenizerJson, NotJsonIsAFormatErrorNamingTheFile) {
  TempDir dir;
  writeBinary(dir / "tokenizer.json", "{\"model\": ");
  try {
    loadTokenizerJson(dir / "tokenizer.json");
    ADD_FAILURE() << "no error";
  } catch (const FormatError& e) {
    EXPECT_EQ(e.file(), dir / "tokenizer.json");
  }
}

TEST(TokenizerJson, TokenizerConfigNamesTheSpecialTokens) {
  Json root = llama2Tokenizer();
  TempDir dir;
  writeBinary(
      dir / "tokenizer_config.json",
      Json{{"bos_token", {{"content", "</s>"}}}, {"eos_token", "<s>"}, {"pad_token", nullptr}}
          .dump());
  const auto tokenizer = loadJson(dir, root);
  EXPECT_EQ(tokenizer->bosId(), 2);  // deliberately swapped to prove the config wins
  EXPECT_EQ(tokenizer->eosId(), 1);
  EXPECT_FALSE(tokenizer->padId().has_value());
}

}  // namespace
}  // namespace strata::tokenizer
