// The pretrain recipe as a specification: a tiny run learns, its exported Hugging Face folder
// is the same Llama as the trainable one (Backbone's logits equal the module's), checkpoints
// are complete, and a resumed run ends exactly where an uninterrupted one does.

#include <torch/torch.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>

#include "common/error.h"
#include "common/text_file.h"
#include "engine/checkpoint_store.h"
#include "engine/recipe_catalog.h"
#include "engine/run_folder.h"
#include "model/backbone/backbone.h"
#include "model/trainable/trainable_llama.h"
#include "recipes/pretrain/pretrain_files.h"
#include "support/cli_runner.h"
#include "support/module_parameters.h"
#include "support/scoped_environment.h"
#include "support/temp_dir.h"
#include "support/training_fixture.h"
#include "tokenizer/tokenizer.h"

namespace strata::recipes {
namespace {
namespace fs = std::filesystem;
using testing::loggedLosses;

/** One uninterrupted tiny run, shared by the tests that only read it. */
class PretrainRun : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_dir = new TempDir;
    testing::writeToyCorpus(*s_dir / "corpus.txt");
    s_summary = testing::trainTiny(testing::tinyPretrainConfig(*s_dir / "corpus.txt"), out());
  }
  static void TearDownTestSuite() {
    delete s_dir;
    s_dir = nullptr;
  }
  static fs::path out() { return *s_dir / "run"; }
  static inline TempDir* s_dir = nullptr;
  static inline engine::TrainingSummary s_summary;
};

TEST(PretrainByteTokenizer, RoundTripsArbitraryUtf8OneIdPerByte) {
  TempDir dir;
  writeTokenizerFiles("byte", dir.path());
  const auto tokenizer = tokenizer::loadTokenizer(dir.path());
  EXPECT_EQ(tokenizer->vocabSize(), 258);
  EXPECT_EQ(tokenizer->bosId(), 256);
  EXPECT_EQ(tokenizer->eosId(), 257);
  const std::string text = "def f(x):\n\treturn x  # héllo ✓ 𝄞 🙂 \r\n  \x01\x7f end";
  const std::vector<int32_t> ids = tokenizer->encode(text);
  ASSERT_EQ(ids.size(), text.size());
  for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(ids[i], static_cast<uint8_t>(text[i]));
  EXPECT_EQ(tokenizer->decode(ids), text);
  std::string all;  // every byte value, as the tokenizer must cover all 256
  for (int b = 1; b < 256; ++b) all += static_cast<char>(b);
  EXPECT_EQ(tokenizer->decode(tokenizer->encode(all)), all);
}

TEST_F(PretrainRun, LossDecreasesClearly) {
  const std::map<int64_t, double> losses = loggedLosses(out());
  ASSERT_EQ(losses.size(), 30u);
  double first = 0, last = 0;
  for (int64_t i = 0; i < 5; ++i) {
    first += losses.at(1 + i) / 5;
    last += losses.at(30 - i) / 5;
  }
  EXPECT_LT(last, first - 1.0) << "first-5 mean " << first << ", last-5 mean " << last;
  EXPECT_TRUE(s_summary.finished);
  EXPECT_GT(s_summary.lastMetrics.at("val_loss"), 0);
  EXPECT_LT(s_summary.lastMetrics.at("val_loss"), losses.at(1));
}

TEST_F(PretrainRun, ExportedFolderIsTheSameLlamaForBackbone) {
  for (const char* file : {"config.json", "model.safetensors", "tokenizer.json", "run.json",
                           "tokenizer_config.json", "README.md", "training.json"})
    EXPECT_TRUE(fs::is_regular_file(out() / file)) << file;
  const auto backbone = model::Backbone::load(out());
  EXPECT_EQ(backbone->numLayers(), 2);

  model::TrainableLlamaConfig shape;
  shape.vocabSize = 258;
  shape.dim = 32;
  shape.layers = 2;
  shape.heads = 4;
  shape.kvHeads = 2;
  shape.mlp = 64;
  model::TrainableLlama model(shape);
  torch::load(model, (out() / "checkpoints" / "step-30" / "model.pt").string());

  const torch::Tensor ids = torch::randint(0, 258, {2, 24}, torch::kInt64);
  model::CaptureRequest request;
  request.logits = true;
  request.keepHidden = false;
  const torch::Tensor expected = backbone->capture(ids, request).logits;
  torch::NoGradGuard noGrad;
  const torch::Tensor actual = model->forward(ids);
  ASSERT_EQ(actual.sizes(), expected.sizes());
  EXPECT_LT((actual - expected).abs().max().item<double>(), 1e-4);

  const auto config = nlohmann::json::parse(readWholeFile(out() / "config.json"));
  EXPECT_EQ(config["architectures"][0], "LlamaForCausalLM");
  EXPECT_EQ(config["tie_word_embeddings"], true);
  EXPECT_EQ(config["bos_token_id"], 256);
  EXPECT_EQ(config["eos_token_id"], 257);
  const auto training = nlohmann::json::parse(readWholeFile(out() / "training.json"));
  EXPECT_EQ(training["command"], "training test");
  EXPECT_TRUE(training["corpus_hash"].get<std::string>().starts_with("sha256:"));
  EXPECT_DOUBLE_EQ(training["final_val_loss"].get<double>(), s_summary.lastMetrics.at("val_loss"));
}

TEST_F(PretrainRun, CheckpointFoldersAreCompleteWithNoTempLeft) {
  const fs::path folder = out() / "checkpoints";
  for (const char* step : {"step-10", "step-20", "step-30"}) {
    EXPECT_TRUE(engine::CheckpointStore::verify(folder / step)) << step;
    for (const char* file : {"model.pt", "optimizer.pt", "rng.pt", "state.json", "manifest.json"})
      EXPECT_TRUE(fs::is_regular_file(folder / step / file)) << step << "/" << file;
  }
  for (const auto& entry : fs::directory_iterator(folder))
    EXPECT_FALSE(entry.path().filename().string().starts_with(".")) << entry.path();
  EXPECT_EQ(readWholeFile(folder / "latest"), "step-30\n");
  const auto state = nlohmann::json::parse(readWholeFile(folder / "step-20" / "state.json"));
  EXPECT_EQ(state["step"], 20);
}

TEST_F(PretrainRun, ResumedRunEndsWithTheUninterruptedWeights) {
  TempDir dir;
  engine::ResolvedConfig config = testing::tinyPretrainConfig(*s_dir / "corpus.txt");
  config.set("stop_after", int64_t{20});
  const engine::TrainingSummary stopped = testing::trainTiny(config, dir / "run");
  EXPECT_FALSE(stopped.finished);
  EXPECT_EQ(stopped.lastStep, 20);
  // A half-written checkpoint of a later step (a crash) is skipped in favour of step-20.
  fs::create_directories(dir / "run" / "checkpoints" / "step-25");
  std::ofstream(dir / "run" / "checkpoints" / "step-25" / "model.pt") << "truncated";

  const engine::TrainingSummary resumed = testing::resumeTiny(dir / "run", {"stop_after=0"});
  EXPECT_EQ(resumed.startStep, 20);
  EXPECT_EQ(resumed.lastStep, 30);
  EXPECT_TRUE(resumed.finished);
  EXPECT_EQ(loggedLosses(dir / "run"), loggedLosses(out()));  // step for step, bit for bit
  EXPECT_TRUE(testing::sameWeights(out() / "model.safetensors", dir / "run" / "model.safetensors"));
  EXPECT_DOUBLE_EQ(resumed.lastMetrics.at("val_loss"), s_summary.lastMetrics.at("val_loss"));
}

TEST(PretrainConfigFile, OverridesDefaultsAndRejectsUnknownKeys) {
  TempDir dir;
  const engine::ConfigSchema schema = engine::recipeSchema("pretrain");
  std::ofstream(dir / "good.json") << R"({"steps": 7, "seq_len": 64, "lr": 0.002, "kv_heads": 1,
                                          "tokenizer": "byte"})";
  engine::ResolvedConfig config(schema);
  engine::applyConfigFile(schema, dir / "good.json", config);
  EXPECT_EQ(config.integer("steps"), 7);
  EXPECT_EQ(config.integer("seq_len"), 64);
  EXPECT_DOUBLE_EQ(config.real("lr"), 0.002);
  EXPECT_EQ(config.integer("kv_heads"), 1);
  EXPECT_EQ(config.integer("batch"), 16);
  std::ofstream(dir / "bad.json") << R"({"stpes": 7})";
  EXPECT_THROW(engine::applyConfigFile(schema, dir / "bad.json", config), ConfigError);
  std::ofstream(dir / "type.json") << R"({"steps": "many"})";
  EXPECT_THROW(engine::applyConfigFile(schema, dir / "type.json", config), ConfigError);
}

TEST(CliPretrain, TrainsAndWritesAFolder) {
  TempDir dir;
  testing::writeToyCorpus(dir / "corpus.txt");
  const testing::CommandOutput result = testing::runCli(
      "pretrain --corpus " + (dir / "corpus.txt").string() + " --out " + (dir / "m").string() +
      " --steps 3 --batch 2 --seq-len 16 --dim 16 --layers 1 --heads 2 --mlp 32 --warmup 1");
  ASSERT_EQ(result.exitCode, 0) << result.out;
  EXPECT_NE(result.out.find("step 3/3 loss"), std::string::npos) << result.out;
  EXPECT_TRUE(fs::is_regular_file(dir / "m" / "model.safetensors"));
  const auto training = nlohmann::json::parse(readWholeFile(dir / "m" / "training.json"));
  EXPECT_TRUE(training["command"].get<std::string>().starts_with("strata-cli pretrain --corpus"));
}

TEST(TrainableLlamaShape, ItsConfigCountsItsParametersWithoutBuildingIt) {
  model::TrainableLlamaConfig config;
  config.vocabSize = 300;
  config.dim = 48;
  config.layers = 3;
  config.heads = 6;
  config.kvHeads = 2;  // grouped keys and values
  config.mlp = 100;
  EXPECT_EQ(config.parameterCount(), testing::builtParameters(*model::TrainableLlama(config)));
}

TEST(CliTrainMemory, ARunTooLargeForTheMemoryIsRefusedBeforeItsModelIsBuilt) {
  TempDir dir;
  testing::writeToyCorpus(dir / "corpus.txt");
  const std::string run = (dir / "run").string();
  const std::string settings = " --set corpus=" + (dir / "corpus.txt").string() +
                               " --set steps=1 --set batch=2 --set seq_len=16 --set dim=16"
                               " --set layers=1 --set heads=2 --set mlp=32 --set warmup=1";
  // The plan of a tiny model needs ~0.4 GiB (the process itself): refused with 100 MiB.
  std::optional<testing::ScopedEnvironment> environment(std::in_place);
  environment->set("STRATA_MEMORY_AVAILABLE", "100M");  // inherited by the command
  const testing::CommandOutput refused =
      testing::runCli("train pretrain --run-dir " + run + settings);
  environment.reset();
  EXPECT_NE(refused.exitCode, 0) << refused.out;
  EXPECT_NE(refused.out.find("this training run needs about"), std::string::npos) << refused.out;
  EXPECT_NE(refused.out.find("100 MiB is available"), std::string::npos) << refused.out;
  EXPECT_FALSE(fs::exists(dir / "run" / "checkpoints" / "step-1")) << "nothing was trained";
  const auto status = nlohmann::json::parse(readWholeFile(dir / "run" / "status.json"));
  EXPECT_EQ(status["state"], "failed");
  // Two processes on this machine each need as much: 700 MiB holds one (~0.4 GiB), not two.
  environment.emplace();
  environment->set("STRATA_MEMORY_AVAILABLE", "700M");
  const testing::CommandOutput one =
      testing::runCli("train pretrain --run-dir " + (dir / "one").string() + settings);
  EXPECT_EQ(one.exitCode, 0) << one.out;
  const testing::CommandOutput two =
      testing::runCli("train pretrain --nproc 2 --run-dir " + (dir / "two").string() + settings);
  EXPECT_NE(two.exitCode, 0) << two.out;
  EXPECT_NE(two.out.find("(2 processes, each with"), std::string::npos) << two.out;
  environment.reset();
  // A stopped run resumed where it no longer fits is refused and keeps its step; resumed with
  // room, it goes on.
  const testing::CommandOutput stopped =
      testing::runCli("train pretrain --run-dir " + (dir / "stopped").string() + settings +
                      " --set steps=3" + " --set stop_after=2");
  ASSERT_EQ(engine::readRunStatus(dir / "stopped").step, 2) << stopped.out;
  environment.emplace();
  environment->set("STRATA_MEMORY_AVAILABLE", "100M");
  const testing::CommandOutput tooSmall = testing::runCli("resume " + (dir / "stopped").string());
  environment.reset();
  EXPECT_NE(tooSmall.exitCode, 0) << tooSmall.out;
  EXPECT_EQ(engine::readRunStatus(dir / "stopped").state, engine::RunState::Failed);
  EXPECT_EQ(engine::readRunStatus(dir / "stopped").step, 2) << "the refused resume keeps the step";
  const testing::CommandOutput resumed = testing::runCli("resume " + (dir / "stopped").string());
  EXPECT_EQ(resumed.exitCode, 0) << resumed.out;
  EXPECT_EQ(engine::readRunStatus(dir / "stopped").step, 3);
  // With room, the same run prints its plan and trains.
  const testing::CommandOutput ran =
      testing::runCli("train pretrain --run-dir " + (dir / "run2").string() + settings);
  ASSERT_EQ(ran.exitCode, 0) << ran.out;
  EXPECT_NE(ran.out.find("training memory plan: weights"), std::string::npos) << ran.out;
}

/** The "training memory plan: …" line a run logged (empty when it logged none). */
std::string loggedPlan(const std::string& log) {
  const size_t at = log.find("training memory plan: weights");
  return at == std::string::npos ? std::string() : log.substr(at, log.find('\n', at) - at);
}

TEST(CliTrainPlan, PrintsTheRunsOwnPlanWithoutReadingTheCorpusOrCreatingTheRun) {
  TempDir dir;
  testing::writeToyCorpus(dir / "corpus.txt");
  const std::string settings =
      " --set steps=1 --set batch=2 --set seq_len=16 --set dim=16 --set layers=1 --set heads=2"
      " --set mlp=32 --set warmup=1";
  testing::ScopedEnvironment environment;
  environment.set("STRATA_MEMORY_AVAILABLE", "8G");  // the same figures in every run below
  const testing::CommandOutput ran =
      testing::runCliSplit("train pretrain --run-dir " + (dir / "run").string() +
                           " --set corpus=" + (dir / "corpus.txt").string() + settings);
  ASSERT_EQ(ran.exitCode, 0) << ran.err;
  const std::string runPlan = loggedPlan(ran.err);
  ASSERT_FALSE(runPlan.empty()) << ran.err;
  // A pretrain run is a model folder too: inspect shows the model, then the run.
  const testing::CommandOutput inspected =
      testing::runCliSplit("inspect " + (dir / "run").string());
  ASSERT_EQ(inspected.exitCode, 0) << inspected.err;
  EXPECT_NE(inspected.out.find("Architecture  LlamaForCausalLM"), std::string::npos)
      << inspected.out;
  EXPECT_NE(inspected.out.find("Recipe       pretrain"), std::string::npos) << inspected.out;
  EXPECT_NE(inspected.out.find("State        finished, step 1 of 1"), std::string::npos)
      << inspected.out;
  const testing::CommandOutput json =
      testing::runCliSplit("inspect --json " + (dir / "run").string());
  ASSERT_EQ(json.exitCode, 0) << json.err;
  const auto doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["training_run"]["recipe"], "pretrain");
  EXPECT_EQ(doc["training_run"]["step"], 1);

  // The corpus does not exist: the plan never reads it, and nothing is created.
  const testing::CommandOutput planned =
      testing::runCliSplit("train pretrain --plan --run-dir " + (dir / "planned").string() +
                           " --set corpus=" + (dir / "missing.txt").string() + settings);
  ASSERT_EQ(planned.exitCode, 0) << planned.err;
  EXPECT_EQ(planned.out, runPlan + "\n");
  EXPECT_FALSE(fs::exists(dir / "planned"));

  environment.set("STRATA_MEMORY_AVAILABLE", "100M");
  const testing::CommandOutput refused = testing::runCliSplit(
      "train pretrain --plan --set corpus=" + (dir / "missing.txt").string() + settings);
  EXPECT_EQ(refused.exitCode, 1) << refused.err;
  EXPECT_NE(refused.out.find("100 MiB available memory: does not fit"), std::string::npos)
      << refused.out;
  EXPECT_NE(refused.err.find("this training run needs about"), std::string::npos) << refused.err;

  // --nproc 2: the plan each of two processes on this machine starts with (a row each, both
  // sharing the memory), printed by one process that starts neither and joins no group.
  environment.set("STRATA_MEMORY_AVAILABLE", "8G");
  const testing::CommandOutput ranTwo =
      testing::runCliSplit("train pretrain --nproc 2 --run-dir " + (dir / "two").string() +
                           " --set corpus=" + (dir / "corpus.txt").string() + settings);
  ASSERT_EQ(ranTwo.exitCode, 0) << ranTwo.err;
  const std::string twoPlan = loggedPlan(ranTwo.err);
  EXPECT_NE(twoPlan.find(" for its 2 of 8.00 GiB"), std::string::npos) << twoPlan;
  const testing::CommandOutput two = testing::runCliSplit(
      "train pretrain --plan --nproc 2 --run-dir " + (dir / "two-planned").string() +
      " --set corpus=" + (dir / "missing.txt").string() + settings);
  ASSERT_EQ(two.exitCode, 0) << two.err;
  EXPECT_EQ(two.out, twoPlan + "\n");
  EXPECT_NE(two.out, planned.out) << "two processes plan a row each, and twice the memory";
  EXPECT_FALSE(fs::exists(dir / "two-planned"));
  // A batch the processes cannot share is refused as the run would refuse it.
  const testing::CommandOutput three = testing::runCliSplit(
      "train pretrain --plan --nproc 3 --set corpus=" + (dir / "missing.txt").string() + settings);
  EXPECT_EQ(three.exitCode, 1) << three.err;
  EXPECT_NE(three.err.find("must be a multiple of the number of processes (3)"), std::string::npos)
      << three.err;
  // Processes on other machines cannot be planned from this one.
  const testing::CommandOutput spread =
      testing::runCliSplit("train pretrain --plan --world-size 2 --rank 0 --set corpus=" +
                           (dir / "missing.txt").string() + settings);
  EXPECT_EQ(spread.exitCode, 2) << spread.err;
  EXPECT_NE(spread.err.find("give them with --nproc"), std::string::npos) << spread.err;
}

}  // namespace
}  // namespace strata::recipes
