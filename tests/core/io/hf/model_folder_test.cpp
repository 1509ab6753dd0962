// The tokenizer kind a model folder reports, from whichever tokenizer files it holds, and the
// weights-only inspection that memory planning and fingerprints use.

#include "io/hf/model_folder.h"

#include <gtest/gtest.h>

#include <fstream>

#include "common/error.h"
#include "support/temp_dir.h"
#include "support/tiny_model_folder.h"

namespace strata::io {

namespace {

TEST(ModelFolder, TokenizerKindComesFromTheFilesPresent) {
  TempDir dir;
  EXPECT_EQ(detectTokenizerKind(dir.path()), "none found");

  std::ofstream(dir / "tokenizer.model", std::ios::binary) << std::string("\x0A\x05hello", 7);
  EXPECT_EQ(detectTokenizerKind(dir.path()), "SentencePiece (tokenizer.model)");

  std::ofstream(dir / "tokenizer.model") << "IQ== 0\nIg== 1\n";
  EXPECT_EQ(detectTokenizerKind(dir.path()), "tiktoken ranks (tokenizer.model)");

  std::ofstream(dir / "vocab.json") << "{}";
  std::ofstream(dir / "merges.txt") << "#version: 0.2\n";
  EXPECT_EQ(detectTokenizerKind(dir.path()), "byte-level BPE (vocab.json + merges.txt)");

  std::ofstream(dir / "tokenizer.json")
      << R"({"model": {"type": "BPE", "byte_fallback": true, "vocab": {}, "merges": []},
             "pre_tokenizer": {"type": "Metaspace"}})";
  EXPECT_EQ(detectTokenizerKind(dir.path()), "BPE with byte fallback (tokenizer.json)");
}

TEST(ModelFolder, TheKindIgnoresTheVocabularyButReadsEveryStepOfTheTokenizer) {
  // The vocabulary and merges are skipped while parsing (they are most of a large
  // tokenizer.json); a ByteLevel step nested in a Sequence must still be seen, and a vocabulary
  // whose tokens look like settings must not be.
  TempDir dir;
  std::ofstream(dir / "tokenizer.json")
      << R"({"added_tokens": [{"id": 0, "content": "<s>", "type": "Unigram"}],
             "model": {"type": "BPE", "vocab": {"type": 0, "byte_fallback": 1},
                       "merges": ["t ype"]},
             "pre_tokenizer": {"type": "Sequence",
                               "pretokenizers": [{"type": "Split"}, {"type": "ByteLevel"}]}})";
  EXPECT_EQ(detectTokenizerKind(dir.path()), "byte-level BPE (tokenizer.json)");

  std::ofstream(dir / "tokenizer.json")
      << R"({"model": {"vocab": {"a": 0}, "type": "WordPiece", "merges": []}})";
  EXPECT_EQ(detectTokenizerKind(dir.path()), "WordPiece (tokenizer.json)");

  std::ofstream(dir / "tokenizer.json") << R"({"model": {"type": "BPE", "vocab": {"a": 0})";
  EXPECT_THROW(detectTokenizerKind(dir.path()), FormatError) << "a truncated file is refused";
}

TEST(ModelFolder, TheWeightsAloneAreInspectedWithoutTheTokenizer) {
  TempDir dir;
  const testing::TinyLlamaShape shape;
  testing::writeTinyLlamaFolder(dir.path(), shape);
  std::ofstream(dir / "tokenizer.json") << "{ not json";
  const ModelSummary weights = inspectModelWeights(dir.path());
  EXPECT_EQ(weights.parameterCount, testing::tinyLlamaParameterCount(shape));
  EXPECT_EQ(weights.weightFiles.size(), 1u);
  EXPECT_TRUE(weights.tokenizerKind.empty());
  EXPECT_THROW(inspectModelFolder(dir.path()), FormatError) << "the full inspection reads it";
}

TEST(ModelFolder, MalformedTokenizerJsonNamesTheFile) {
  TempDir dir;
  std::ofstream(dir / "tokenizer.json") << R"({"version": "1.0"})";
  try {
    detectTokenizerKind(dir.path());
    FAIL() << "a tokenizer.json without a model must be refused";
  } catch (const std::exception& error) {
    EXPECT_NE(std::string(error.what()).find((dir / "tokenizer.json").string()), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace strata::io
