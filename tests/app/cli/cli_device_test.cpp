// --device on every job command: cpu gives the result the command gave before it had the
// option, auto is the CPU where LibTorch sees no CUDA device, and cuda there fails saying why.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/device_choice.h"
#include "io/store/activation_store.h"
#include "model/backbone/backbone.h"
#include "model/backbone/generation.h"
#include "support/cli_runner.h"
#include "support/letter_corpus.h"
#include "support/model_test_folders.h"
#include "support/temp_dir.h"
#include "tokenizer/tokenizer.h"

namespace strata {
namespace {

const char* kNoCudaMessage = "--device cuda: this build of LibTorch sees no CUDA device (";

/** A tiny model folder with the letter tokenizer, and a letter corpus beside it. */
struct TinyModel {
  TempDir dir;
  /** `vocab` 30: exactly the letter tokenizer's ids, so that generated ids decode. */
  explicit TinyModel(int64_t vocab = testing::kRandomVocab) {
    testing::writeRandomBackbone(dir / "model", {.vocab = vocab});
    testing::writeLetterTokenizer(dir / "model");
    testing::writeLetterCorpus(dir / "corpus.txt");
  }
  std::string model() const { return (dir / "model").string(); }
  std::string corpus() const { return (dir / "corpus.txt").string(); }
};

std::vector<std::vector<float>> layersOf(const std::filesystem::path& file) {
  const io::ActivationStore store = io::ActivationStore::open(file);
  std::vector<std::vector<float>> layers;
  for (int64_t layer = 0; layer <= testing::kRandomLayers; ++layer)
    layers.push_back(store.readLayer(layer));
  return layers;
}

TEST(CliDevice, CaptureOnTheCpuWritesWhatTheCpuComputes) {
  const TinyModel tiny;
  const std::string common = "capture --model " + tiny.model() + " --corpus " + tiny.corpus() +
                             " --tokens 100 --seq-len 16 --dtype float32 --out ";
  const testing::CommandOutput cpu =
      testing::runCli(common + (tiny.dir / "cpu.h5").string() + " --device cpu");
  ASSERT_EQ(cpu.exitCode, 0) << cpu.out;
  EXPECT_NE(cpu.out.find("layers on the CPU"), std::string::npos) << cpu.out;
  const testing::CommandOutput streamed = testing::runCli(
      common + (tiny.dir / "streamed.h5").string() + " --device cpu --stream-layers");
  ASSERT_EQ(streamed.exitCode, 0) << streamed.out;
  // Streaming reads weights on the CPU and moves them to the compute device: on the CPU that
  // must change nothing.
  EXPECT_EQ(layersOf(tiny.dir / "streamed.h5"), layersOf(tiny.dir / "cpu.h5"));
}

TEST(CliDevice, AutoIsTheCpuWhereLibTorchSeesNoCuda) {
  if (engine::cudaUsable()) GTEST_SKIP() << "a CUDA device is present: auto is CUDA here";
  const TinyModel tiny;
  const std::string common = "capture --model " + tiny.model() + " --corpus " + tiny.corpus() +
                             " --tokens 100 --seq-len 16 --dtype float32 --out ";
  const testing::CommandOutput automatic =
      testing::runCli(common + (tiny.dir / "auto.h5").string() + " --device auto");
  ASSERT_EQ(automatic.exitCode, 0) << automatic.out;
  EXPECT_NE(automatic.out.find("layers on the CPU"), std::string::npos) << automatic.out;
  ASSERT_EQ(testing::runCli(common + (tiny.dir / "cpu.h5").string() + " --device cpu").exitCode, 0);
  EXPECT_EQ(layersOf(tiny.dir / "auto.h5"), layersOf(tiny.dir / "cpu.h5"));
}

TEST(CliDevice, GenerateOnTheCpuContinuesAsTheModelDoes) {
  const TinyModel tiny(30);
  model::GenerationConfig config;
  config.maxNewTokens = 12;
  const auto tokenizer = tokenizer::loadTokenizer(tiny.model());
  std::vector<int32_t> all = tokenizer->encode("abc", true);
  const auto continuation = generate(*model::Backbone::load(tiny.model()), all, config);
  all.insert(all.end(), continuation.begin(), continuation.end());
  for (const std::string device : {"cpu", "auto"}) {
    const testing::CommandOutput result =
        testing::runCliSplit("generate --model " + tiny.model() +
                             " --prompt abc --max-new-tokens 12 --device " + device);
    ASSERT_EQ(result.exitCode, 0) << result.out << result.err;
    EXPECT_EQ(result.out, tokenizer->decode(all, true) + "\n") << device;
  }
}

TEST(CliDevice, CudaWithoutADeviceFailsEveryJobSayingWhy) {
  if (engine::cudaUsable()) GTEST_SKIP() << "a CUDA device is present: --device cuda is valid here";
  const TinyModel tiny;
  const std::string model = " --model " + tiny.model(), corpus = " --corpus " + tiny.corpus();
  const std::string out = " --out " + (tiny.dir / "out").string();
  const std::vector<std::string> commands = {
      "capture" + model + corpus + " --out " + (tiny.dir / "acts.h5").string(),
      "generate" + model + " --prompt abc",
      "generate --dlm " + (tiny.dir / "no-run").string() + " --prompt abc",
      "generate --bridge " + (tiny.dir / "no-run").string() + " --prompt abc",
      "sweep-bridges" + model + corpus + " --layers 1..2" + out,
      "compare-dlm" + corpus + out,
      "compare-align" + model + corpus + out,
  };
  for (const std::string& command : commands) {
    const testing::CommandOutput result = testing::runCli(command + " --device cuda");
    EXPECT_EQ(result.exitCode, 1) << command << "\n" << result.out;
    EXPECT_NE(result.out.find(kNoCudaMessage), std::string::npos) << command << "\n" << result.out;
    EXPECT_FALSE(std::filesystem::exists(tiny.dir / "out")) << command << " started work";
    EXPECT_FALSE(std::filesystem::exists(tiny.dir / "acts.h5")) << command << " started work";
  }
}

TEST(CliDevice, AnUnknownDeviceIsAUsageError) {
  const TinyModel tiny;
  const testing::CommandOutput result =
      testing::runCli("capture --model " + tiny.model() + " --corpus " + tiny.corpus() + " --out " +
                      (tiny.dir / "acts.h5").string() + " --device gpu");
  EXPECT_EQ(result.exitCode, 2) << result.out;
  EXPECT_NE(result.out.find("--device must be cpu, cuda or auto, got 'gpu'"), std::string::npos)
      << result.out;
}

}  // namespace
}  // namespace strata
