// The DiHAL bridge on the built-in default model: the frozen upper stack is the model's own
// top, a small bridge learns (its loss falls, its samples approach h_{l*}), the run resumes
// exactly, a trained bridge generates text beside the original model, and the bridgeability
// sweep reports a rank correlation over layers.

#include <gtest/gtest.h>
#include <fstream>
#include <torch/torch.h>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "core/cli_runner.h"
#include "core/temp_dir.h"
#include "core/training_fixture.h"
#include "engine/capture.h"
#include "engine/job.h"
#include "engine/metrics_log.h"
#include "io/text_file.h"
#include "recipes/bridge_files.h"
#include "recipes/bridge_source.h"
#include "recipes/bridge_sweep.h"
#include "recipes/hybrid_generation.h"
#include "recipes/registry.h"

namespace strata {
namespace {
namespace fs = std::filesystem;

const fs::path kModel = STRATA_SOURCE_DIR "/resources/models/default";

ResolvedConfig tinyBridgeConfig(const fs::path& corpus, int64_t layer) {
  ResolvedConfig c(recipeSchema("bridge"));
  c.set("model", kModel.string());
  c.set("corpus", corpus.string());
  c.set("layer", layer);
  c.set("steps", int64_t{40});
  c.set("batch", int64_t{4});
  c.set("seq_len", int64_t{32});
  c.set("lr", 3e-3);
  c.set("warmup", int64_t{4});
  c.set("width", int64_t{32});
  c.set("depth", int64_t{1});
  c.set("heads", int64_t{2});
  c.set("mlp_ratio", int64_t{2});
  c.set("log_every", int64_t{1});
  c.set("eval_every", int64_t{20});
  c.set("checkpoint_every", int64_t{20});
  c.set("eval_windows", int64_t{4});
  c.set("stats_windows", int64_t{8});
  c.set("sample_steps", int64_t{5});
  c.set("seed", int64_t{5});
  return c;
}

TrainingSummary train(const ResolvedConfig& config, const fs::path& run) {
  NullProgressSink sink;
  JobContext job(sink, CancellationToken());
  TrainingRequest request;
  request.recipe = "bridge";
  request.config = config;
  request.runFolder = run;
  return startTraining(request, job);
}

class Bridge : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_dir = new TempDir;
    testing::writeToyCorpus(corpus());
    s_summary = train(tinyBridgeConfig(corpus(), 2), run());
  }
  static void TearDownTestSuite() {
    delete s_dir;
    s_dir = nullptr;
  }
  static fs::path corpus() { return *s_dir / "corpus.txt"; }
  static fs::path run() { return *s_dir / "bridge"; }
  static inline TempDir* s_dir = nullptr;
  static inline TrainingSummary s_summary;
};

TEST_F(Bridge, TheUpperStackFedTheTrueHiddenStateIsTheWholeModel) {
  const BridgeSource source(kModel, 2, torch::kCPU);
  const torch::Tensor ids = torch::randint(0, 256, {2, 12}, torch::kInt64);
  CaptureRequest request;
  request.logits = true;
  request.keepHidden = false;
  const torch::Tensor whole = source.backbone().capture(ids, request).logits;
  torch::NoGradGuard noGrad;
  const torch::Tensor split = source.upperLogits(source.target(source.condition(ids)));
  EXPECT_LT((whole - split).abs().max().item<double>(), 1e-4);
  EXPECT_THROW(BridgeSource(kModel, 5, torch::kCPU), ConfigError);  // the model has 4 layers
}

TEST_F(Bridge, ABridgeLearnsAndReportsItsEvaluation) {
  const auto losses = testing::loggedLosses(run());
  ASSERT_EQ(losses.size(), 40u);
  double first = 0, last = 0;
  for (int64_t i = 0; i < 5; ++i) {
    first += losses.at(1 + i) / 5;
    last += losses.at(40 - i) / 5;
  }
  EXPECT_LT(last, 0.8 * first) << first << " → " << last;
  const auto& m = s_summary.lastMetrics;
  for (const char* key : {"val_loss", "val_mse", "val_cosine", "val_ce_bridge", "val_ce_true",
                          "val_ce_gap", "val_ppl_bridge", "val_ppl_true", "val_top1_agreement"})
    ASSERT_TRUE(m.count(key) && std::isfinite(m.at(key))) << key;
  EXPECT_GT(m.at("val_cosine"), 0.3);
  EXPECT_GE(m.at("val_top1_agreement"), 0.0);
  EXPECT_LE(m.at("val_top1_agreement"), 1.0);
  EXPECT_NEAR(m.at("val_ppl_true"), std::exp(m.at("val_ce_true")), 1e-6 * m.at("val_ppl_true"));
  // The statistics normalise h_2 to zero mean, unit variance per dimension.
  const HiddenStatistics stats = readBridgeStatistics(run(), torch::kCPU);
  EXPECT_EQ(stats.mean.size(0), 128);
  EXPECT_GT(stats.std.min().item<double>(), 0);
  const auto description = nlohmann::json::parse(readWholeFile(run() / "run.json"))["description"];
  EXPECT_EQ(description["layer"], "2");
}

TEST_F(Bridge, AStoppedBridgeResumesExactly) {
  TempDir dir;
  ResolvedConfig config = tinyBridgeConfig(corpus(), 2);
  config.set("stop_after", int64_t{20});
  train(config, dir / "run");
  NullProgressSink sink;
  JobContext job(sink, CancellationToken());
  resumeTraining(dir / "run", job, {}, {}, {"stop_after=0"});
  EXPECT_EQ(testing::loggedLosses(dir / "run"), testing::loggedLosses(run()));
  EXPECT_EQ(testing::loggedValLosses(dir / "run"), testing::loggedValLosses(run()));
}

TEST_F(Bridge, HybridGenerationRunsBesideTheOriginalModel) {
  HybridComparisonConfig config;
  config.bridgeRun = run();
  config.prompts = {"the cat ", "my friend "};
  config.sampling.maxNewTokens = 6;
  NullProgressSink sink;
  JobContext job(sink, CancellationToken());
  const HybridComparison result = compareHybridGeneration(config, job);
  ASSERT_EQ(result.prompts.size(), 2u);
  EXPECT_EQ(result.layer, 2);
  for (const auto& p : result.prompts) {
    EXPECT_EQ(p.hybrid.tokens.size(), 6u);
    EXPECT_GT(p.hybrid.genPpl, 1.0);
    EXPECT_GT(p.original.genPpl, 1.0);
  }
  EXPECT_GT(result.hybridMsPerToken, 0);
  EXPECT_GT(result.originalMsPerToken, 0);
  EXPECT_GE(result.hybridDiversity, 0);
  EXPECT_LE(result.hybridDiversity, 1);
  const auto cli = testing::runCli("generate --bridge " + run().string() +
                                   " --prompt 'the dog ' --max-new-tokens 4");
  ASSERT_EQ(cli.exitCode, 0) << cli.out;
  EXPECT_NE(cli.out.find("hybrid:"), std::string::npos) << cli.out;
  EXPECT_NE(cli.out.find("slower per token"), std::string::npos) << cli.out;
}

TEST(GenerationDiversity, DistinctNOnHandCountedCases) {
  EXPECT_DOUBLE_EQ(distinctN({{1, 2, 3, 4}}, 2), 1.0);
  EXPECT_DOUBLE_EQ(distinctN({{1, 1, 1, 1}}, 2), 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(distinctN({{1, 2, 1, 2}}, 2), 2.0 / 3.0);  // 12, 21, 12
  EXPECT_DOUBLE_EQ(distinctN({{1, 2}, {1, 2}}, 2), 0.5);     // pooled over sequences
  EXPECT_DOUBLE_EQ(distinctN({{1}}, 2), 0.0);
  EXPECT_DOUBLE_EQ(generationDiversity({{1, 2, 3, 4, 5}}), 1.0);
  // 1 1 1 1 1: distinct-2 = 1/4, distinct-3 = 1/3, distinct-4 = 1/2.
  EXPECT_DOUBLE_EQ(generationDiversity({{1, 1, 1, 1, 1}}), 1.0 / 24.0);
}

TEST_F(Bridge, TheSweepTrainsEveryLayerAndCorrelatesWithTheScore) {
  TempDir dir;
  BridgeSweepConfig config;
  config.model = kModel;
  config.corpus = corpus();
  config.folder = dir / "sweep";
  config.firstLayer = 1;
  config.lastLayer = 3;
  config.steps = 6;
  config.captureTokens = 512;
  config.permutations = 200;
  config.settings = {"batch=4", "seq_len=16", "width=16", "depth=1", "heads=2", "eval_windows=2",
                     "stats_windows=4", "sample_steps=2", "warmup=1", "log_every=1"};
  NullProgressSink sink;
  JobContext job(sink, CancellationToken());
  const BridgeSweepResult result = runBridgeSweep(config, job);
  ASSERT_EQ(result.rows.size(), 3u);
  for (const auto& row : result.rows) EXPECT_TRUE(std::isfinite(row.valLoss)) << row.layer;
  EXPECT_GE(result.rho, -1.0);
  EXPECT_LE(result.rho, 1.0);
  EXPECT_GT(result.pValue, 0.0);
  EXPECT_GE(result.bestByScore, 1);
  EXPECT_GE(result.worstByScore, 1);
  ASSERT_EQ(result.baselines.size(), 1u);  // layer 0, same budget
  EXPECT_EQ(result.baselines[0].layer, 0);
  EXPECT_EQ(testing::loggedLosses(result.baselines[0].run).size(), 6u);
  const auto report = nlohmann::json::parse(readWholeFile(dir / "sweep" / "sweep.json"));
  EXPECT_EQ(report["layers"].size(), 3u);
  const BridgeSweepResult read = readBridgeSweep(dir / "sweep");
  ASSERT_EQ(read.rows.size(), 3u);
  ASSERT_EQ(read.baselines.size(), 1u);
  EXPECT_EQ(read.worstByScore, result.worstByScore);
  EXPECT_DOUBLE_EQ(read.rho, result.rho);
  EXPECT_EQ(read.rows[1].layer, 2);
  EXPECT_DOUBLE_EQ(read.rows[1].valLoss, result.rows[1].valLoss);
  // Running it again continues: every run is finished, nothing is retrained.
  const auto before = fs::last_write_time(dir / "sweep" / "layer-2" / "metrics.jsonl");
  const BridgeSweepResult again = runBridgeSweep(config, job);
  EXPECT_EQ(fs::last_write_time(dir / "sweep" / "layer-2" / "metrics.jsonl"), before);
  EXPECT_DOUBLE_EQ(again.rho, result.rho);
}

}  // namespace
}  // namespace strata

namespace strata {
namespace {

TEST(BridgeFromStore, TrainsOnTheStoredHiddenStates) {
  TempDir dir;
  testing::writeToyCorpus(dir / "corpus.txt");
  CaptureConfig capture;
  capture.modelFolder = kModel;
  capture.corpus = dir / "corpus.txt";
  capture.output = dir / "acts.h5";
  capture.sampling.tokenBudget = 1024;
  capture.sampling.sequenceLength = 33;  // 32 stored positions per sequence after position 0
  NullProgressSink sink;
  JobContext job(sink, CancellationToken());
  runCapture(capture, job);

  ResolvedConfig config = tinyBridgeConfig("", 3);
  config.set("targets", std::string("store"));
  config.set("store", (dir / "acts.h5").string());
  config.set("seq_len", int64_t{16});
  const TrainingSummary summary = train(config, dir / "run");
  EXPECT_TRUE(summary.finished);
  const auto losses = testing::loggedLosses(dir / "run");
  EXPECT_LT(losses.rbegin()->second, losses.begin()->second);
  EXPECT_TRUE(std::isfinite(summary.lastMetrics.at("val_ce_gap")));
  EXPECT_EQ(readBridgeStatistics(dir / "run", torch::kCPU).source.empty(), false);

  // Another checkpoint of the same model (one weight nudged by its last bit) is refused: the
  // store holds the original's hidden states.
  const fs::path tuned = dir / "tuned";
  fs::copy(kModel, tuned, fs::copy_options::recursive);
  const fs::path weights = tuned / "model.safetensors";
  ASSERT_TRUE(fs::exists(weights));
  {
    std::fstream io(weights, std::ios::binary | std::ios::in | std::ios::out);
    uint64_t headerBytes = 0;
    io.read(reinterpret_cast<char*>(&headerBytes), 8);
    const uint64_t dataStart = 8 + headerBytes;
    const uint64_t sampled = (fs::file_size(weights) - 4096) / 65 + 64;  // inside block 1
    ASSERT_GT(sampled, dataStart);
    const uint64_t lowByte = dataStart + ((sampled - dataStart) & ~uint64_t{3});
    char byte = 0;
    io.seekg(static_cast<std::streamoff>(lowByte));
    io.read(&byte, 1);
    byte = static_cast<char>(byte ^ 1);
    io.seekp(static_cast<std::streamoff>(lowByte));
    io.write(&byte, 1);
  }
  config.set("model", tuned.string());
  try {
    train(config, dir / "tuned-run");
    ADD_FAILURE() << "trained on the hidden states of another checkpoint";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("weights differ"), std::string::npos) << e.what();
  }
  config.set("model", kModel.string());

  config.set("store", std::string());
  try {
    train(config, dir / "no-store");
    ADD_FAILURE() << "trained from a store that was not given";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("targets"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace strata
