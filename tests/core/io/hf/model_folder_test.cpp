// The tokenizer kind a model folder reports, from whichever tokenizer files it holds.

#include "io/hf/model_folder.h"

#include <gtest/gtest.h>

#include <fstream>

#include "support/temp_dir.h"

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
