// The tokenizer files core/io/gguf/gguf_tokenizer writes from GGUF metadata, on tiny hand-made
// files (tests/support/gguf_tokenizer_fixtures.h) with expectations worked out by hand from
// transformers' conversion rules; gguf_tokenizer_reference_test.cpp checks the same files, and
// two real models, against transformers itself.

#include "io/gguf/gguf_tokenizer.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "io/gguf/gguf_file.h"
#include "support/gguf_tokenizer_fixtures.h"
#include "support/temp_dir.h"
#include "support/tokenizer_test_support.h"
#include "tokenizer/tokenizer.h"

namespace strata::io {

namespace {

using nlohmann::json;
using testing::ggufBool;
using testing::ggufString;
using testing::GgufTestFile;
using testing::ggufUInt32;
using testing::tinyTokenizerFile;
using Ids = std::vector<int32_t>;

const std::string G = "\u0120";  // byte-level space
const std::string M = "\u2581";  // SentencePiece space

/** The converted files of `file` (written to a scratch GGUF first) and the tokenizer that
 *  Strata loads from them. */
struct Converted {
  TempDir dir;
  GgufTokenizerFiles files;
  json tokenizer, config;
  std::unique_ptr<tokenizer::Tokenizer> loaded;

  explicit Converted(const GgufTestFile& file) {
    file.write(dir / "model.gguf");
    files = ggufTokenizerFiles(GgufFile(dir / "model.gguf"));
    tokenizer = json::parse(files.tokenizerJson);
    config = json::parse(files.tokenizerConfigJson);
    std::filesystem::create_directories(dir / "folder");
    testing::writeBinary(dir / "folder" / "tokenizer.json", files.tokenizerJson);
    testing::writeBinary(dir / "folder" / "tokenizer_config.json", files.tokenizerConfigJson);
    loaded = tokenizer::loadTokenizer(dir / "folder");
  }

  json added(const std::string& content) const {
    for (const json& token : tokenizer["added_tokens"])
      if (token["content"] == content) return token;
    return nullptr;
  }
};

/** The FormatError message of converting `file`, or "" when it converts. */
std::string conversionError(const GgufTestFile& file) {
  TempDir dir;
  file.write(dir / "bad.gguf");
  try {
    ggufTokenizerFiles(GgufFile(dir / "bad.gguf"));
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.gguf"), std::string::npos) << e.what();
    return e.what();
  }
  return "";
}

TEST(GgufTokenizer, ByteLevelFileKeepsItsMergesAndGpt2sPreTokenizer) {
  Converted c(tinyTokenizerFile(testing::tinyByteLevel("llama", "smollm")));
  json& model = c.tokenizer["model"];
  EXPECT_EQ(model["type"], "BPE");
  EXPECT_EQ(model["byte_fallback"], false);
  EXPECT_EQ(model["merges"], json::parse(R"([["a","b"],["Ġ","a"],["Ġa","b"]])"));
  EXPECT_EQ(c.tokenizer["pre_tokenizer"],
            json::parse(R"({"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,
                            "use_regex":true})"));
  EXPECT_EQ(c.tokenizer["decoder"]["type"], "ByteLevel");
  // " ab a" → " ab" " a": a+b merges first (rank 0), so "Ġ" "ab", then "Ġa".
  EXPECT_EQ(c.loaded->encode(" ab a"), (Ids{2, 3, 4}));
  EXPECT_EQ(c.loaded->decode(Ids{2, 3, 4}), " ab a");
}

TEST(GgufTokenizer, ControlTokensAreSpecialAndUserDefinedTokensStayWhole) {
  Converted c(tinyTokenizerFile(testing::tinyByteLevel("llama", "")));
  EXPECT_EQ(c.added("<|begin_of_text|>")["special"], true);
  EXPECT_EQ(c.added("<think>")["special"], false);
  EXPECT_EQ(c.added("<think>")["normalized"], false);
  EXPECT_EQ(c.loaded->encode("a<think>b<|begin_of_text|>"), (Ids{0, 7, 1, 6}));
  EXPECT_EQ(c.loaded->decode(Ids{0, 7, 1, 6}, /*skipSpecialTokens=*/true), "a<think>b");
}

TEST(GgufTokenizer, ByteLevelRespellsTokensOutsideItsAlphabetAndSkipsThemAsControl) {
  Converted c(tinyTokenizerFile(testing::tinyByteLevel("llama", "")));
  EXPECT_EQ(c.tokenizer["model"]["vocab"]["x" + G + "y"], 8);
  EXPECT_FALSE(c.tokenizer["model"]["vocab"].contains("x y"));
  EXPECT_TRUE(c.added("x y").is_null()) << "a control token outside the byte alphabet";
}

TEST(GgufTokenizer, ByteLevelVocabularyWithoutEndOfTextGainsItAsTransformersDoes) {
  // GPT2Tokenizer's constructor adds its default "<|endoftext|>" after the last id.
  Converted c(tinyTokenizerFile(testing::tinyByteLevel("llama", "")));
  EXPECT_EQ(c.added("<|endoftext|>")["id"], 9);
  EXPECT_EQ(c.added("<|endoftext|>")["special"], true);
  EXPECT_EQ(c.loaded->vocabSize(), 10);
}

TEST(GgufTokenizer, PreTokenizerNameSelectsTheSplitRegexTransformersUses) {
  Converted llama3(tinyTokenizerFile(testing::tinyByteLevel("llama", "llama-bpe")));
  json& steps = llama3.tokenizer["pre_tokenizer"]["pretokenizers"];
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(
      steps[0]["pattern"]["Regex"],
      R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)");
  EXPECT_EQ(steps[1]["use_regex"], false);
  Converted qwen2(tinyTokenizerFile(testing::tinyByteLevel("qwen2", "qwen2")));
  EXPECT_NE(qwen2.tokenizer["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"]
                .get<std::string>()
                .find(R"(|\p{N}|)"),
            std::string::npos)
      << "Qwen2 splits single digits";
}

TEST(GgufTokenizer, BosAndEosAreAddedOnlyWhenTheFileAsksForThem) {
  GgufTestFile file = tinyTokenizerFile(testing::tinyByteLevel("llama", ""));
  file.set("tokenizer.ggml.bos_token_id", ggufUInt32(6));
  EXPECT_EQ(Converted(file).loaded->encode("ab", true), (Ids{3})) << "no add_bos_token key";
  file.set("tokenizer.ggml.add_bos_token", ggufBool(true));
  file.set("tokenizer.ggml.eos_token_id", ggufUInt32(7));  // "<think>"
  file.set("tokenizer.ggml.add_eos_token", ggufBool(true));
  Converted both(file);
  EXPECT_EQ(both.loaded->encode("ab", true), (Ids{6, 3, 7}));
  EXPECT_EQ(both.loaded->encode("ab"), (Ids{3}));
  EXPECT_EQ(both.config["add_bos_token"], true);
  EXPECT_EQ(both.config["add_eos_token"], true);
}

TEST(GgufTokenizer, SentencePieceFilesAddBosUnlessTheySayOtherwise) {
  GgufTestFile file = tinyTokenizerFile(testing::tinySentencePiece("llama", "llama"));
  file.set("tokenizer.ggml.bos_token_id", ggufUInt32(1));
  Converted byDefault(file);
  EXPECT_EQ(byDefault.loaded->encode("ab", true), (Ids{1, 264}));
  EXPECT_EQ(byDefault.config["add_bos_token"], true);
  file.set("tokenizer.ggml.add_bos_token", ggufBool(false));
  EXPECT_EQ(Converted(file).loaded->encode("ab", true), (Ids{264}));
}

TEST(GgufTokenizer, SentencePieceMergesAreDerivedFromTheScores) {
  Converted c(tinyTokenizerFile(testing::tinySentencePiece("llama", "llama")));
  // Best score first; for one token ("▁ab", two splits) the longer left part first.
  EXPECT_EQ(c.tokenizer["model"]["merges"],
            json::parse(R"([["▁","a"],["a","b"],["▁a","b"],["▁","ab"]])"));
  EXPECT_EQ(c.tokenizer["model"]["byte_fallback"], true);
  EXPECT_EQ(c.tokenizer["pre_tokenizer"]["prepend_scheme"], "first");
  EXPECT_EQ(c.loaded->encode("ab a"), (Ids{264, 262}));     // "▁ab" "▁a"
  EXPECT_EQ(c.loaded->encode("zz"), (Ids{259, 125, 125}));  // "▁", then byte fallback
  EXPECT_EQ(c.loaded->decode(Ids{264, 262}), "ab a");       // the prefix space stripped
}

TEST(GgufTokenizer, Phi3PutsThePrefixSpaceInTheNormalizer) {
  Converted c(tinyTokenizerFile(testing::tinySentencePiece("phi3", "llama")));
  EXPECT_EQ(c.tokenizer["normalizer"]["normalizers"][0]["type"], "Prepend");
  EXPECT_TRUE(c.tokenizer["pre_tokenizer"].is_null());
  EXPECT_EQ(c.loaded->encode(" ab"), (Ids{259, 264}));  // "▁" "▁ab": the text's own space kept
}

TEST(GgufTokenizer, GemmaRespellsWhitespaceTokensAndOrdersMergesByPosition) {
  Converted c(tinyTokenizerFile(testing::tinyGemma()));
  json& vocab = c.tokenizer["model"]["vocab"];
  EXPECT_EQ(vocab[M + M + M], 9) << "\"   \" is looked up as \"▁▁▁\"";
  EXPECT_EQ(vocab[M + M], 273) << "a repeated token keeps its last id, as a Python dict does";
  const auto merges = c.tokenizer["model"]["merges"].get<std::vector<std::vector<std::string>>>();
  const auto rank = [&merges](const std::vector<std::string>& merge) {
    return std::find(merges.begin(), merges.end(), merge) - merges.begin();
  };
  EXPECT_LT(rank({"a", "b"}), rank({M, "a"})) << "token order, not the rising scores";
  EXPECT_EQ(c.added("\n\n")["special"], false);
  EXPECT_TRUE(c.added("  ").is_null()) << "respelled, so left to the merges";
  EXPECT_EQ(c.tokenizer["model"]["unk_token"], "<unk>");
  EXPECT_EQ(c.loaded->encode("a\n\nb"), (Ids{267, 6, 268}));
  EXPECT_EQ(c.loaded->encode("ab ab"), (Ids{269, 271}));  // "ab" "▁ab": spaces become "▁"
  EXPECT_EQ(c.config["mask_token"], "<mask>");
}

TEST(GgufTokenizer, Gemma4NeverAddsBos) {
  GgufTestFile file = tinyTokenizerFile(testing::tinySentencePiece("gemma4", "gemma4"));
  file.set("tokenizer.ggml.bos_token_id", ggufUInt32(1));
  file.set("tokenizer.ggml.add_bos_token", ggufBool(true));
  Converted c(file);
  EXPECT_EQ(c.config["add_bos_token"], false);
  EXPECT_EQ(c.loaded->encode("ab", true), c.loaded->encode("ab"));
}

TEST(GgufTokenizer, ConfigNamesTheSpecialTokensAndCarriesTheChatTemplate) {
  GgufTestFile file = tinyTokenizerFile(testing::tinyByteLevel("llama", ""));
  file.set("tokenizer.ggml.bos_token_id", ggufUInt32(6))
      .set("tokenizer.ggml.eos_token_id", ggufUInt32(1))
      .set("tokenizer.chat_template", ggufString("{{ messages }}"));
  Converted c(file);
  EXPECT_EQ(c.config["bos_token"], "<|begin_of_text|>");
  EXPECT_EQ(c.config["eos_token"], "b");
  EXPECT_TRUE(c.config["unk_token"].is_null());
  EXPECT_TRUE(c.config["mask_token"].is_null());
  EXPECT_EQ(c.config["chat_template"], "{{ messages }}");
  EXPECT_EQ(c.loaded->bosId(), 6);
  EXPECT_EQ(c.loaded->eosId(), 1);
  // A token the file names but does not mark CONTROL becomes special all the same.
  EXPECT_TRUE(c.loaded->isSpecial(1));
  EXPECT_EQ(c.loaded->encode("ab"), (Ids{0, 1}));
}

TEST(GgufTokenizer, RejectsATokenTypeCountThatIsNotTheTokenCount) {
  testing::TinyTokenizer t = testing::tinyByteLevel("llama", "");
  t.types.pop_back();
  EXPECT_NE(conversionError(tinyTokenizerFile(t)).find("tokenizer.ggml.token_type"),
            std::string::npos);
}

TEST(GgufTokenizer, RejectsASpecialTokenIdOutOfRange) {
  GgufTestFile file = tinyTokenizerFile(testing::tinyByteLevel("llama", ""));
  file.set("tokenizer.ggml.eos_token_id", ggufUInt32(9));
  const std::string error = conversionError(file);
  EXPECT_NE(error.find("tokenizer.ggml.eos_token_id"), std::string::npos) << error;
  EXPECT_NE(error.find("9"), std::string::npos) << error;
}

TEST(GgufTokenizer, RejectsAnUnsupportedTokenizerModelNamingIt) {
  const std::string t5 = conversionError(tinyTokenizerFile(testing::tinySentencePiece("t5", "t5")));
  EXPECT_NE(t5.find("'t5' (Unigram)"), std::string::npos) << t5;
  const std::string bert =
      conversionError(tinyTokenizerFile(testing::tinySentencePiece("bert", "bert")));
  EXPECT_NE(bert.find("'bert'"), std::string::npos) << bert;
  EXPECT_NE(bert.find("tokenizer.ggml.model"), std::string::npos) << bert;
}

TEST(GgufTokenizer, RejectsAFileWithoutTokens) {
  GgufTestFile file;
  file.set("general.architecture", ggufString("llama"));
  file.set("tokenizer.ggml.model", ggufString("gpt2"));
  EXPECT_NE(conversionError(file).find("tokenizer.ggml.tokens"), std::string::npos);
}

TEST(GgufTokenizer, RejectsMergesThatDoNotFitTheVocabulary) {
  testing::TinyTokenizer t = testing::tinyByteLevel("llama", "");
  t.merges.push_back("b a");  // "ba" is not a token
  const std::string missing = conversionError(tinyTokenizerFile(t));
  EXPECT_NE(missing.find("tokenizer.ggml.merges"), std::string::npos) << missing;
  EXPECT_NE(missing.find("\"ba\""), std::string::npos) << missing;
  t.merges.back() = "a b ab";
  EXPECT_NE(conversionError(tinyTokenizerFile(t)).find("one space"), std::string::npos);
}

TEST(GgufTokenizer, RejectsASentencePieceFileWithNeitherMergesNorScores) {
  testing::TinyTokenizer t = testing::tinySentencePiece("llama", "llama");
  t.scores.clear();
  EXPECT_NE(conversionError(tinyTokenizerFile(t)).find("tokenizer.ggml.scores"), std::string::npos);
}

TEST(GgufTokenizer, RejectsATokenThatIsNotUtf8) {
  testing::TinyTokenizer t = testing::tinyByteLevel("llama", "");
  t.tokens[1] = "\xff";
  const std::string error = conversionError(tinyTokenizerFile(t));
  EXPECT_NE(error.find("token 1 is not valid UTF-8"), std::string::npos) << error;
}

}  // namespace
}  // namespace strata::io
