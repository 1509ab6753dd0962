// The DiHAL bridge on the built-in default model: the frozen upper stack is the model's own
// top, a small bridge learns (its loss falls, its samples approach h_{l*}), the run resumes
// exactly, a trained bridge generates text beside the original model, and the bridgeability
// sweep reports a rank correlation over layers.

#include <torch/torch.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/job.h"
#include "common/text_file.h"
#include "engine/capture.h"
#include "engine/metrics_log.h"
#include "engine/recipe_catalog.h"
#include "model/backbone/backbone.h"
#include "recipes/bridge/bridge_files.h"
#include "recipes/bridge/bridge_source.h"
#include "recipes/bridge/bridge_sweep.h"
#include "recipes/bridge/hybrid_generation.h"
#include "recipes/sample_quality.h"
#include "studies/comparison_studies.h"
#include "support/bridge_fixture.h"
#include "support/cli_runner.h"
#include "support/model_test_folders.h"
#include "support/temp_dir.h"
#include "support/training_fixture.h"
#include "tokenizer/tokenizer.h"

namespace strata::recipes {
namespace {
namespace fs = std::filesystem;

const fs::path kModel = testing::defaultModelFolder();
using testing::tinyBridgeConfig;

engine::TrainingSummary train(const engine::ResolvedConfig& config, const fs::path& run) {
  return testing::trainRecipe("bridge", config, run);
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
  static inline engine::TrainingSummary s_summary;
};

TEST_F(Bridge, TheUpperStackFedTheTrueHiddenStateIsTheWholeModel) {
  const BridgeSource source(kModel, 2, torch::kCPU);
  const torch::Tensor ids = torch::randint(0, 256, {2, 12}, torch::kInt64);
  model::CaptureRequest request;
  request.logits = true;
  request.keepHidden = false;
  const torch::Tensor whole = source.backbone().capture(ids, request).logits;
  torch::NoGradGuard noGrad;
  const torch::Tensor split = source.upperLogits(source.target(source.condition(ids)));
  EXPECT_LT((whole - split).abs().max().item<double>(), 1e-4);
  EXPECT_THROW(BridgeSource(kModel, 5, torch::kCPU), ConfigError);  // the model has 4 layers
}

TEST_F(Bridge, ABridgeLearnsAndReportsItsEvaluation) {
  testing::expectLossFalls(run());
  const auto& m = s_summary.lastMetrics;
  for (const char* key : {"val_loss", "val_mse", "val_cosine", "val_ce_bridge", "val_ce_true",
                          "val_ce_gap", "val_ppl_bridge", "val_ppl_true", "val_top1_agreement"})
    ASSERT_TRUE(m.count(key) && std::isfinite(m.at(key))) << key;
  EXPECT_GT(m.at("val_cosine"), 0.3);
  EXPECT_GE(m.at("val_top1_agreement"), 0.0);
  EXPECT_LE(m.at("val_top1_agreement"), 1.0);
  EXPECT_NEAR(m.at("val_ppl_true"), std::exp(m.at("val_ce_true")), 1e-6 * m.at("val_ppl_true"));
  // The statistics normalise h_2 and the condition h_0 to zero mean, unit variance per dimension.
  const BridgeStatistics stats = readBridgeStatistics(run(), torch::kCPU);
  for (const HiddenStatistics* s : {&stats.target, &stats.condition}) {
    EXPECT_EQ(s->mean.size(0), 128);
    EXPECT_GT(s->std.min().item<double>(), 0);
  }
  EXPECT_FALSE(torch::equal(stats.target.mean, stats.condition.mean));
  const auto description = nlohmann::json::parse(readWholeFile(run() / "run.json"))["description"];
  EXPECT_EQ(description["layer"], "2");
}

TEST_F(Bridge, AStoppedBridgeResumesExactly) {
  testing::expectResumesExactly(tinyBridgeConfig(corpus(), 2), run());
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
  EXPECT_TRUE(result.selfJudged);
  EXPECT_EQ(result.judge, kModel.string());
  for (const auto& p : result.prompts) {
    EXPECT_EQ(p.hybrid.tokens.size(), 6u);
    EXPECT_GT(p.hybrid.genPpl, 1.0);
    EXPECT_GT(p.original.genPpl, 1.0);
  }
  EXPECT_GT(result.hybridMsPerToken, 0);
  EXPECT_GT(result.originalMsPerToken, 0);
  // The per-text SimCTG numbers of sample_quality.h, over words and over tokens.
  std::vector<std::string> hybridTexts;
  std::vector<std::vector<int32_t>> hybridTokens;
  for (const auto& p : result.prompts) {
    hybridTexts.push_back(p.hybrid.text);
    hybridTokens.push_back(p.hybrid.tokens);
  }
  EXPECT_DOUBLE_EQ(result.hybridDiversity, wordDiversity(hybridTexts));
  EXPECT_DOUBLE_EQ(result.hybridTokenDiversity, tokenDiversity(hybridTokens));
  const auto cli = testing::runCli("generate --bridge " + run().string() +
                                   " --prompt 'the dog ' --max-new-tokens 4");
  ASSERT_EQ(cli.exitCode, 0) << cli.out;
  EXPECT_NE(cli.out.find("hybrid:"), std::string::npos) << cli.out;
  EXPECT_NE(cli.out.find("slower per token"), std::string::npos) << cli.out;
  EXPECT_NE(cli.out.find("temperature 1, top-p 0.95"), std::string::npos) << cli.out;
  EXPECT_NE(cli.out.find("self-judged"), std::string::npos) << cli.out;
}

/** Σ CE of `continuation` after `prompt` under `folder`'s model, from its logits. */
double judgeCrossEntropy(const fs::path& folder, const std::string& prompt,
                         const std::string& continuation, int64_t& tokens) {
  const auto tokenizer = tokenizer::loadTokenizer(folder);
  const auto model = model::Backbone::load(folder);
  std::vector<int32_t> ids = tokenizer->encode(prompt, true);
  const size_t promptLength = ids.size();
  const std::vector<int32_t> text = tokenizer->encode(continuation, false);
  ids.insert(ids.end(), text.begin(), text.end());
  model::CaptureRequest request;
  request.logits = true;
  const torch::Tensor logits =
      model
          ->capture(torch::tensor(std::vector<int64_t>(ids.begin(), ids.end())).unsqueeze(0),
                    request)
          .logits[0]
          .to(torch::kDouble);
  const torch::Tensor logProbabilities = torch::log_softmax(logits, -1);
  double sum = 0;
  for (size_t i = promptLength; i < ids.size(); ++i)
    sum -= logProbabilities[static_cast<int64_t>(i) - 1][ids[i]].item<double>();
  tokens = static_cast<int64_t>(text.size());
  return sum;
}

TEST_F(Bridge, GenPplIsTheJudgesExpMeanCrossEntropy) {
  TempDir dir;
  const fs::path judge = dir / "judge";  // another model of the same byte tokenizer
  testing::RandomBackboneSpec spec;
  spec.vocab = 258;
  testing::writeRandomBackbone(judge, spec);
  for (const char* file : {"tokenizer.json", "tokenizer_config.json"})
    fs::copy_file(kModel / file, judge / file);

  HybridComparisonConfig config;
  config.bridgeRun = run();
  config.prompts = {"the cat ", "my friend "};
  config.sampling.maxNewTokens = 6;
  config.sampling.temperature = 1;
  config.judge = judge;
  NullProgressSink sink;
  JobContext job(sink, CancellationToken());
  const HybridComparison result = compareHybridGeneration(config, job);
  EXPECT_FALSE(result.selfJudged);
  EXPECT_EQ(result.judge, judge.string());
  double hybridSum = 0, originalSum = 0;
  int64_t hybridTokens = 0, originalTokens = 0;
  for (const auto& p : result.prompts) {
    int64_t n = 0;
    const double ce = judgeCrossEntropy(judge, p.prompt, p.hybrid.text, n);
    ASSERT_GT(n, 0);
    EXPECT_NEAR(p.hybrid.genPpl, std::exp(ce / static_cast<double>(n)), 1e-4 * p.hybrid.genPpl);
    hybridSum += ce;
    hybridTokens += n;
    originalSum += judgeCrossEntropy(judge, p.prompt, p.original.text, n);
    originalTokens += n;
  }
  EXPECT_NEAR(result.hybridGenPpl, std::exp(hybridSum / static_cast<double>(hybridTokens)),
              1e-4 * result.hybridGenPpl);
  EXPECT_NEAR(result.originalGenPpl, std::exp(originalSum / static_cast<double>(originalTokens)),
              1e-4 * result.originalGenPpl);
  const auto cli =
      testing::runCli("generate --bridge " + run().string() +
                      " --prompt 'the dog ' --max-new-tokens 4 --judge " + judge.string());
  ASSERT_EQ(cli.exitCode, 0) << cli.out;
  EXPECT_NE(cli.out.find("judged by " + judge.string()), std::string::npos) << cli.out;
  EXPECT_EQ(cli.out.find("self-judged"), std::string::npos) << cli.out;
}

TEST(GenerationDiversity, IsCountedPerTextNotPooledOverPrompts) {
  // Two identical texts 1 2 3 4 5: per text every 2-, 3- and 4-gram is new → 1. The old pooled
  // count gave 4/8 · 3/6 · 2/4 = 1/8.
  EXPECT_DOUBLE_EQ(tokenDiversity({{1, 2, 3, 4, 5}, {1, 2, 3, 4, 5}}), 1.0);
  // 1 1 1 1 1: distinct-2 = 1/4, distinct-3 = 1/3, distinct-4 = 1/2.
  EXPECT_DOUBLE_EQ(tokenDiversity({{1, 1, 1, 1, 1}}), 1.0 / 24.0);
  // Counts summed over texts before dividing: {1 1 1 1 1, 1 2 3 4 5} → 5/8 · 4/6 · 3/4.
  EXPECT_DOUBLE_EQ(tokenDiversity({{1, 1, 1, 1, 1}, {1, 2, 3, 4, 5}}),
                   (5.0 / 8) * (4.0 / 6) * (3.0 / 4));
  // Over words: "a a a a a" is the same count as 1 1 1 1 1, whatever each word's length.
  EXPECT_DOUBLE_EQ(wordDiversity({"a a  a\na a"}), 1.0 / 24.0);
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
  config.settings = {"batch=4",  "seq_len=16",     "width=16",        "depth=1",
                     "heads=2",  "eval_windows=2", "stats_windows=4", "sample_steps=2",
                     "warmup=1", "log_every=1"};
  NullProgressSink sink;
  JobContext job(sink, CancellationToken());
  const BridgeSweepResult result = studies::runBridgeSweep(config, job);
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
  // The baseline is unconditional embedding diffusion, scored by its rounding accuracy.
  const auto baselineRun =
      nlohmann::json::parse(readWholeFile(result.baselines[0].run / "run.json"));
  EXPECT_EQ(baselineRun["config"]["condition"], "none");
  EXPECT_GE(result.baselines[0].roundingAccuracy, 0.0);
  EXPECT_LE(result.baselines[0].roundingAccuracy, 1.0);
  EXPECT_TRUE(std::isnan(result.rows[0].roundingAccuracy));
  const auto report = nlohmann::json::parse(readWholeFile(dir / "sweep" / "sweep.json"));
  EXPECT_EQ(report["layers"].size(), 3u);
  const BridgeSweepResult read = readBridgeSweep(dir / "sweep");
  ASSERT_EQ(read.rows.size(), 3u);
  ASSERT_EQ(read.baselines.size(), 1u);
  EXPECT_DOUBLE_EQ(read.baselines[0].roundingAccuracy, result.baselines[0].roundingAccuracy);
  EXPECT_EQ(read.worstByScore, result.worstByScore);
  EXPECT_DOUBLE_EQ(read.rho, result.rho);
  EXPECT_DOUBLE_EQ(read.rhoDepth, result.rhoDepth);
  EXPECT_EQ(read.normalisation, "standardise");  // the store was scored under the default
  EXPECT_TRUE(report.contains("partial_rho_given_depth"));
  EXPECT_TRUE(report.contains("rho_neg_k_eff"));
  EXPECT_NE(readWholeFile(dir / "sweep" / "sweep.md").find("S given depth"), std::string::npos);
  EXPECT_EQ(read.rows[1].layer, 2);
  EXPECT_DOUBLE_EQ(read.rows[1].valLoss, result.rows[1].valLoss);
  // It ran as a study: one arm per layer and the baseline, each a run in runs/, no claim.
  const auto study = nlohmann::json::parse(readWholeFile(dir / "sweep" / "study.json"));
  EXPECT_EQ(study["study"], "sweep-bridges");
  EXPECT_EQ(result.rows[1].run, dir / "sweep" / "runs" / "layer-2-s0");
  // Running it again continues: every run is finished, nothing is retrained — also a run of a
  // sweep started before sweeps were studies (DIR/layer-<l>), which moves into runs/.
  const fs::path layer2 = dir / "sweep" / "runs" / "layer-2-s0";
  const auto before = fs::last_write_time(layer2 / "metrics.jsonl");
  fs::rename(layer2, dir / "sweep" / "layer-2");
  const BridgeSweepResult again = studies::runBridgeSweep(config, job);
  EXPECT_FALSE(fs::exists(dir / "sweep" / "layer-2"));
  EXPECT_EQ(fs::last_write_time(layer2 / "metrics.jsonl"), before);
  EXPECT_DOUBLE_EQ(again.rho, result.rho);
}

}  // namespace
}  // namespace strata::recipes

namespace strata::recipes {
namespace {

TEST(BridgeSweepLayers, ARangeBeyondTheModelIsRefusedBeforeAnythingIsCaptured) {
  TempDir dir;
  testing::writeToyCorpus(dir / "corpus.txt");
  BridgeSweepConfig config;
  config.model = kModel;
  config.corpus = dir / "corpus.txt";
  config.folder = dir / "sweep";
  config.firstLayer = 1;
  config.lastLayer = 100;
  NullProgressSink sink;
  JobContext job(sink, CancellationToken());
  try {
    prepareBridgeSweepStore(config, job);
    ADD_FAILURE() << "layers 1..100 were accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("layer 100 is not in"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(bridgeSweepStore(config))) << "captured before the range was checked";
}

TEST(BridgeSweepLayers, BadOptionsAreUsageErrorsNamedAsTyped) {
  TempDir dir;
  const std::string command =
      "sweep-bridges --model m --corpus c --out " + (dir / "sweep").string() + " --layers ";
  for (const auto& [bad, said] : std::vector<std::pair<std::string, std::string>>{
           {"1..1", "--layers must be a range a..b of at least two layers"},
           {"1..2 --steps 0", "--steps must be at least 1 (got 0)"},
           {"1..2 --tokens -5", "--tokens must be at least 1 (got -5)"},
           {"1..2 --permutations 0", "--permutations must be at least 1 (got 0)"}}) {
    const testing::CommandOutput run = testing::runCli(command + bad);
    EXPECT_EQ(run.exitCode, 2) << bad << ": " << run.out;
    EXPECT_NE(run.out.find(said), std::string::npos) << bad << ": " << run.out;
  }
  EXPECT_FALSE(fs::exists(dir / "sweep"));
}

TEST(BridgeRecipe, ALayerTheModelLacksIsRefusedBeforeTheRunIsPlanned) {
  TempDir dir;
  testing::writeToyCorpus(dir / "corpus.txt");
  const testing::CommandOutput out =
      testing::runCliSplit("train bridge --plan --set model=" + kModel.string() +
                           " --set corpus=" + (dir / "corpus.txt").string() + " --set layer=99");
  EXPECT_NE(out.exitCode, 0) << out.err;
  EXPECT_NE(out.err.find("field 'layer': must be in 0.."), std::string::npos) << out.err;
  EXPECT_NE(out.err.find("(got 99)"), std::string::npos) << out.err;
  EXPECT_EQ((out.out + out.err).find("memory plan"), std::string::npos)
      << "planned before the check:\n"
      << out.out << out.err;
}

TEST(BridgeFromStore, TrainsOnTheStoredHiddenStates) {
  TempDir dir;
  testing::writeToyCorpus(dir / "corpus.txt");
  engine::CaptureConfig capture;
  capture.modelFolder = kModel;
  capture.corpus = dir / "corpus.txt";
  capture.output = dir / "acts.h5";
  capture.sampling.tokenBudget = 1024;
  capture.sampling.sequenceLength = 33;  // 32 stored positions per sequence after position 0
  NullProgressSink sink;
  JobContext job(sink, CancellationToken());
  engine::runCapture(capture, job);

  engine::ResolvedConfig config = tinyBridgeConfig("", 3);
  config.set("targets", std::string("store"));
  config.set("store", (dir / "acts.h5").string());
  config.set("seq_len", int64_t{16});
  const engine::TrainingSummary summary = train(config, dir / "run");
  EXPECT_TRUE(summary.finished);
  const auto losses = testing::loggedLosses(dir / "run");
  EXPECT_LT(losses.rbegin()->second, losses.begin()->second);
  EXPECT_TRUE(std::isfinite(summary.lastMetrics.at("val_ce_gap")));
  EXPECT_EQ(readBridgeStatistics(dir / "run", torch::kCPU).target.source.empty(), false);

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
}  // namespace strata::recipes
