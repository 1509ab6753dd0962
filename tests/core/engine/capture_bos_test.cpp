// Capture puts a BOS in front of a sequence only where the model's convention has one:
// tokenizer_config.json's add_bos_token when present, else the tokenizer's own template; the
// decision is recorded in the store's /meta (bos_prepended, bos_rule), readable by h5py.
// Strata's pretrain output and the built-in default model (trained without BOS) declare false.

#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "common/job.h"
#include "common/text_file.h"
#include "engine/capture.h"
#include "io/atomic_file.h"
#include "io/store/activation_store.h"
#include "recipes/pretrain/pretrain_files.h"
#include "support/model_test_folders.h"
#include "support/python_finder.h"
#include "support/temp_dir.h"
#include "support/training_fixture.h"
#include "tokenizer/bos_convention.h"
#include "tokenizer/special_tokens_config.h"
#include "tokenizer/tokenizer.h"

namespace strata::engine {

namespace {
namespace fs = std::filesystem;

constexpr int32_t kByteBos = 256;  // <|bos|> of the byte tokenizer

/** A random Llama with the byte tokenizer, whose tokenizer_config.json says `addBos`. */
fs::path byteModel(const fs::path& folder, bool addBos) {
  testing::RandomBackboneSpec spec;
  spec.vocab = 258;
  testing::writeRandomBackbone(folder, spec);
  recipes::writeTokenizerFiles("byte", folder);
  nlohmann::json config = nlohmann::json::parse(readWholeFile(folder / "tokenizer_config.json"));
  config["add_bos_token"] = addBos;
  io::writeTextAtomically(folder / "tokenizer_config.json", config.dump(2));
  return folder;
}

/** Captures `model` over the toy corpus with position 0 stored, so a BOS would be seen, and
 *  rows with repeated prefixes kept: else the lone BOS, the same prefix in every sequence,
 *  would be stored for the corpus's first sequence only (io/corpus/token_sampler.h). */
io::ActivationStore captureWithPositionZero(const fs::path& model, const fs::path& dir) {
  testing::writeToyCorpus(dir / "corpus.txt");
  CaptureConfig config;
  config.modelFolder = model;
  config.corpus = dir / "corpus.txt";
  config.output = dir / "acts.h5";
  config.sampling.sequenceLength = 16;
  config.sampling.tokenBudget = 64;
  config.sampling.skipFirstPositions = 0;
  config.sampling.distinctPrefixes = false;
  NullProgressSink sink;
  JobContext job(sink, CancellationToken());
  runCapture(config, job);
  return io::ActivationStore::open(config.output);
}

int64_t bosRows(const io::TokenTable& tokens) {
  int64_t count = 0;
  for (size_t row = 0; row < tokens.size(); ++row) {
    const bool bos = tokens.position[row] == -1;
    EXPECT_EQ(bos, tokens.ids[row] == kByteBos) << "row " << row;
    count += bos ? 1 : 0;
  }
  return count;
}

TEST(CaptureBos, NoBosWhenTheFolderDeclaresAddBosTokenFalse) {
  TempDir dir;
  const io::ActivationStore store =
      captureWithPositionZero(byteModel(dir / "model", false), dir.path());
  EXPECT_EQ(bosRows(store.tokens()), 0);
  EXPECT_EQ(store.tokens().position.front() % 16, 0);  // sequence position 0: a document token
  EXPECT_EQ(store.meta().extra.at("bos_prepended"), "false");
  EXPECT_EQ(store.meta().extra.at("bos_rule"), "tokenizer_config.json add_bos_token");
}

TEST(CaptureBos, BosAtPositionZeroWhenTheFolderDeclaresAddBosTokenTrue) {
  TempDir dir;
  const io::ActivationStore store =
      captureWithPositionZero(byteModel(dir / "model", true), dir.path());
  EXPECT_EQ(store.tokens().ids.front(), kByteBos);
  EXPECT_GT(bosRows(store.tokens()), 1);  // one per sequence
  EXPECT_EQ(store.meta().extra.at("bos_prepended"), "true");
}

TEST(CaptureBos, TheStoresBosFlagIsReadableByH5py) {
  std::string why;
  const std::string python = testing::findPython(
      {"h5py"}, "run scripts/setup.sh (Strata's Python environment) or set STRATA_PYTHON", why);
  ASSERT_FALSE(python.empty()) << why;
  TempDir dir;
  captureWithPositionZero(byteModel(dir / "model", false), dir.path());
  const std::string command =
      python +
      " -c \"import h5py, sys; a = h5py.File(sys.argv[1], 'r')['meta'].attrs; "
      "print(a['bos_prepended'].decode(), a['bos_rule'].decode())\" '" +
      (dir / "acts.h5").string() + "'";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buffer[256];
  while (fgets(buffer, sizeof buffer, pipe) != nullptr) out += buffer;
  EXPECT_EQ(pclose(pipe), 0) << out;
  EXPECT_EQ(out, "false tokenizer_config.json add_bos_token\n");
}

TEST(BosConvention, WithoutADeclarationTheTokenizersTemplateDecides) {
  TempDir dir;
  const fs::path model = byteModel(dir / "model", true);
  fs::remove(model / "tokenizer_config.json");
  const auto bytes = tokenizer::loadTokenizer(model);
  const tokenizer::BosConvention none = tokenizer::bosConvention(model, *bytes);
  EXPECT_FALSE(none.prepend);  // the byte template adds nothing
  EXPECT_EQ(none.rule, "tokenizer template (encode with special tokens)");
  // llama2.c's template starts with BOS (run.c's encode(bos = 1)).
  const fs::path stories =
      fs::path(STRATA_SHARED_DATA_DIR) / "models" / "stories260K" / "tok512.bin";
  ASSERT_TRUE(fs::exists(stories)) << "missing test data " << stories;
  EXPECT_TRUE(tokenizer::templateStartsWithBos(*tokenizer::loadLlama2cTokenizer(stories)));
}

TEST(BosConvention, PretrainAndTheDefaultModelDeclareTheyTrainedWithoutBos) {
  TempDir dir;
  recipes::writeTokenizerFiles("byte", dir.path());
  EXPECT_EQ(tokenizer::readTokenizerConfig(dir.path()).addBosToken, std::optional<bool>(false));
  const fs::path defaultModel = STRATA_SOURCE_DIR "/resources/models/default";
  EXPECT_EQ(tokenizer::readTokenizerConfig(defaultModel).addBosToken, std::optional<bool>(false));
  EXPECT_FALSE(
      tokenizer::bosConvention(defaultModel, *tokenizer::loadTokenizer(defaultModel)).prepend);
}

}  // namespace
}  // namespace strata::engine
