// Strata's tokenizers against Hugging Face `tokenizers` itself: tests/python/
// hf_tokenizer_reference.py builds each tokenizer of ../shared/data the way transformers does
// (GPT-2's vocab.json + merges.txt through GPT2Tokenizer, Meta's Llama-3 tiktoken file through
// TikTokenConverter, the tokenizer.json Strata's llama2.c import writes for stories260K),
// encodes a few hundred corpus lines and hard Unicode cases (combining marks, ZWJ emoji, CJK,
// RTL, NFC/NFD pairs, control characters, whitespace and digit runs, contractions, special
// tokens written in the text) and records the ids. Strata must give identical ids, from every
// form it reads the tokenizer in, and decode HF's ids back to the text wherever HF's own decode
// is lossless. SentencePiece tokenizer.model files (stories260K's tok512.model and tiny models
// the script trains with byte fallback, Llama-2 / Gemma / unigram-NFKC style) are compared with
// Python's sentencepiece itself and with the tokenizer.json transformers converts them into.
// Skips, saying why, when Strata's Python environment has no tokenizers.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/backbone/llama2c_tokenizer_json.h"
#include "support/python_finder.h"
#include "support/temp_dir.h"
#include "support/tokenizer_test_support.h"
#include "tokenizer/tokenizer.h"

namespace strata::tokenizer {

namespace {

using testing::quoted;
using testing::sharedData;

/** A text the comparison leaves out on purpose, and why (each one a documented divergence). */
using KnownDivergence = std::function<const char*(const std::string& text)>;

std::string idsAround(const Tokenizer& tokenizer, const std::vector<int32_t>& ids, size_t at) {
  std::string out;
  for (size_t i = at; i < std::min(ids.size(), at + 4); ++i)
    out += std::to_string(ids[i]) + " " + quoted(tokenizer.tokenText(ids[i])) + "  ";
  return out.empty() ? "(end)" : out;
}

/**
 * Encodes every text of `reference` with `tokenizer` and expects the ids of reference
 * `referenceName`; reports the first few differing texts with the token position (and the
 * byte offset in the text) where they part, and the count. Where the reference's own decode
 * gives the text back, Strata's decode of the reference ids must too.
 */
void expectSameIds(const Tokenizer& tokenizer, const std::string& form,
                   const nlohmann::json& reference, const std::string& referenceName,
                   const KnownDivergence& known = {}) {
  const auto texts = reference.at("texts").get<std::vector<std::string>>();
  const nlohmann::json& expected = reference.at("references").at(referenceName);
  const auto allIds = expected.at("ids").get<std::vector<std::vector<int32_t>>>();
  const auto lossless = expected.at("lossless").get<std::vector<bool>>();
  ASSERT_EQ(allIds.size(), texts.size());
  size_t differing = 0, skipped = 0, roundTrips = 0;
  for (size_t i = 0; i < texts.size(); ++i) {
    if (known && known(texts[i]) != nullptr) {
      ++skipped;
      continue;
    }
    const std::vector<int32_t> ours = tokenizer.encode(texts[i]);
    const std::vector<int32_t>& want = allIds[i];
    if (ours != want) {
      const auto part = std::mismatch(ours.begin(), ours.end(), want.begin(), want.end());
      const auto at = static_cast<size_t>(part.first - ours.begin());
      if (++differing <= 5)
        ADD_FAILURE()
            << form << " vs " << referenceName << " (" << expected.at("file").get<std::string>()
            << "): text #" << i << " " << quoted(texts[i].substr(0, 120)) << " differs at token "
            << at << " (byte "
            << tokenizer.decode(std::vector<int32_t>(want.begin(), want.begin() + at)).size()
            << " of the text)\n  Strata: " << idsAround(tokenizer, ours, at)
            << "\n  HF:     " << idsAround(tokenizer, want, at);
    }
    if (lossless[i]) {
      ++roundTrips;
      EXPECT_EQ(tokenizer.decode(want), texts[i])
          << form << ": decoding the reference ids of text #" << i << " " << quoted(texts[i]);
    }
  }
  EXPECT_EQ(differing, 0u) << form << " vs " << referenceName << ": " << differing << " of "
                           << texts.size() << " texts differ";
  std::cout << "  " << form << " vs " << referenceName << ": " << texts.size() - skipped - differing
            << "/" << texts.size() - skipped << " texts identical (" << skipped
            << " known divergences left out), " << roundTrips << " decode round trips\n";
}

// Llama-2's tokenizer.json (HF's LlamaConverter, and Strata's import, which follows it) makes
// "<unk>", "<s>" and "</s>" written in the text special tokens; llama2.c's run.c and
// SentencePiece spell them out (core/model/backbone/llama2c_tokenizer_json.h, "Known differences").
const char* spellsLlama2SpecialToken(const std::string& text) {
  for (const char* token : {"<unk>", "<s>", "</s>"})
    if (text.find(token) != std::string::npos) return "a Llama-2 special token written in the text";
  return nullptr;
}

// SentencePiece's own normaliser (remove_extra_whitespaces, on in tok512.model) drops leading
// and trailing spaces and collapses runs of them; llama2.c's run.c and HF's converted Llama-2
// tokenizer keep every space.
const char* sentencePieceCollapsesSpaces(const std::string& text) {
  if (const char* why = spellsLlama2SpecialToken(text)) return why;
  if (text.find("  ") != std::string::npos || text.starts_with(' ') || text.ends_with(' '))
    return "spaces SentencePiece's normaliser removes";
  return nullptr;
}

// transformers 5.25's conversion of a SentencePiece model (AutoTokenizer) departs from
// SentencePiece itself on these, which Strata's tokenizer.model loading (libsentencepiece) does
// not: a text that starts with a space gets one "▁" too many (its normalizer doubles a leading
// "▁" and Metaspace prepends another); "<s>", "</s>", "<unk>" written in the text become special
// tokens; and its Precompiled normalizer does not compose NFD input as SentencePiece's NFKC
// rule does (checked only where the model normalises, `nfkc`).
KnownDivergence transformersSentencePieceConversion(bool nfkc) {
  return [nfkc](const std::string& text) -> const char* {
    if (const char* why = spellsLlama2SpecialToken(text)) return why;
    if (text.starts_with(' ')) return "a leading space, doubled by transformers' conversion";
    if (nfkc && std::any_of(text.begin(), text.end(), [](char c) { return c & 0x80; }))
      return "non-ASCII text under the converted NFKC (Precompiled) normalizer";
    return nullptr;
  };
}

class HfTokenizerReference : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    m_python = testing::findPython(
        {"tokenizers", "transformers"},
        "run scripts/setup.sh (Strata's Python environment) or set STRATA_PYTHON", why);
    if (m_python.empty())
      GTEST_SKIP() << "no Python with HF tokenizers to compare against: " << why;
  }

  /** Runs the reference script for tokenizer `name`; null (and a failure) when it fails. */
  nlohmann::json reference(const std::string& name) {
    const std::string command = "STRATA_SHARED_DATA_DIR='" STRATA_SHARED_DATA_DIR "' " + m_python +
                                " '" STRATA_SOURCE_DIR
                                "/tests/python/hf_tokenizer_reference.py' '" +
                                m_dir.path().string() + "' " + name;
    if (std::system(command.c_str()) != 0) {
      ADD_FAILURE() << command << " failed";
      return nullptr;
    }
    return nlohmann::json::parse(std::ifstream(m_dir / name / "reference.json"));
  }

  std::filesystem::path referenceFile(const nlohmann::json& reference, const std::string& name) {
    return reference.at("references").at(name).at("file").get<std::string>();
  }

  TempDir m_dir;
  std::string m_python;
};

TEST_F(HfTokenizerReference, Gpt2MatchesHuggingFaceFromVocabMergesAndTokenizerJson) {
  const nlohmann::json ref = reference("gpt2");
  ASSERT_FALSE(ref.is_null());
  expectSameIds(*loadVocabAndMerges(sharedData("tokenizers/gpt2/vocab.json"),
                                    sharedData("tokenizers/gpt2/merges.txt")),
                "vocab.json + merges.txt", ref, "gpt2");
  expectSameIds(*loadTokenizerJson(referenceFile(ref, "gpt2")), "HF's tokenizer.json", ref, "gpt2");
}

TEST_F(HfTokenizerReference, Llama3MatchesHuggingFaceFromTiktokenAndTokenizerJson) {
  const nlohmann::json ref = reference("llama3");
  ASSERT_FALSE(ref.is_null());
  expectSameIds(*loadTiktoken(sharedData("tokenizers/llama3/tokenizer.model")),
                "tiktoken tokenizer.model", ref, "llama3");
  expectSameIds(*loadTokenizerJson(referenceFile(ref, "llama3")), "HF's tokenizer.json", ref,
                "llama3");
}

TEST_F(HfTokenizerReference, Stories260KMatchesHuggingFaceOnTheImportedTokenizerJson) {
  const std::filesystem::path bin = sharedData("models/stories260K/tok512.bin");
  ASSERT_TRUE(std::filesystem::exists(bin)) << "missing test data file: " << bin;
  const std::filesystem::path folder = m_dir / "stories260K";
  std::filesystem::create_directories(folder);
  testing::writeBinary(folder / "tokenizer.json",
                       model::llama2cTokenizerJson(tokenizer::readLlama2cVocabulary(bin), bin));
  testing::writeBinary(folder / "tokenizer_config.json", model::llama2cTokenizerConfigJson(512));
  const nlohmann::json ref = reference("stories260K");
  ASSERT_FALSE(ref.is_null());
  const auto imported = loadTokenizerJson(folder / "tokenizer.json");
  expectSameIds(*imported, "imported tokenizer.json", ref, "stories260K");
  expectSameIds(*loadLlama2cTokenizer(bin), "llama2.c tokenizer.bin", ref, "stories260K",
                spellsLlama2SpecialToken);
  // The merges the import derives from the scores must also be SentencePiece's own BPE.
  if (!ref.at("references").contains("sentencepiece")) {
    std::cout << "  (no sentencepiece module: tok512.model not compared)\n";
    return;
  }
  expectSameIds(*imported, "imported tokenizer.json", ref, "sentencepiece",
                sentencePieceCollapsesSpaces);
  // tok512.model itself, read by libsentencepiece: SentencePiece's ids on every text.
  const auto model = loadTokenizer(sharedData("models/stories260K/tok512.model"));
  expectSameIds(*model, "tok512.model", ref, "sentencepiece");
  if (!ref.at("references").contains("transformers")) {
    std::cout << "  (no protobuf module: transformers could not convert tok512.model)\n";
    return;
  }
  expectSameIds(*loadTokenizerJson(referenceFile(ref, "transformers")),
                "transformers' tokenizer.json of tok512.model", ref, "transformers");
  expectSameIds(*model, "tok512.model", ref, "transformers",
                transformersSentencePieceConversion(false));
}

// Tiny SentencePiece models trained by the reference script with byte fallback: Llama-2 /
// Mistral settings (BPE, digits split, dummy prefix, spaces kept), Gemma's (BPE, no dummy
// prefix, user-defined pieces) and a unigram model with NFKC and whitespace clean-up; the texts
// add characters their 512 pieces lack, space and digit runs, emoji and chat markers.
TEST_F(HfTokenizerReference, TrainedSentencePieceModelsMatchSentencePieceAndTransformers) {
  const nlohmann::json ref = reference("spm_trained");
  ASSERT_FALSE(ref.is_null());
  for (const std::string name : {"llama2_bpe", "gemma_bpe", "nfkc_unigram"}) {
    SCOPED_TRACE(name);
    const std::filesystem::path folder = m_dir / "spm_trained" / name;
    const auto model = loadTokenizer(folder);  // the folder holds tokenizer.model only
    EXPECT_EQ(model->kind(), "SentencePiece tokenizer.model (byte fallback)");
    expectSameIds(*model, name + " tokenizer.model", ref, name);
    const std::string converted = name + ".transformers";
    if (!ref.at("references").contains(converted)) {
      std::cout << "  (no protobuf module: transformers could not convert " << name << ")\n";
      continue;
    }
    // Strata reads tokenizer.json with a BPE model only; the unigram conversion is left out.
    if (name != "nfkc_unigram")
      expectSameIds(*loadTokenizerJson(referenceFile(ref, converted)),
                    "transformers' tokenizer.json of " + name, ref, converted);
    expectSameIds(*model, name + " tokenizer.model", ref, converted,
                  transformersSentencePieceConversion(name == "nfkc_unigram"));
  }
}

}  // namespace
}  // namespace strata::tokenizer
