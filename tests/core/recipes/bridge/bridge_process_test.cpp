// The bridge's two processes and its baseline as a specification: the Brownian bridge's
// marginal ends exactly at the target (t = 0) and the condition (t = 1), its sampler starts from
// the condition; a bridge-process run learns and resumes bit for bit; the embedding-diffusion
// baseline never sees the clean embeddings and rounds exact embeddings back to their tokens;
// bridge windows leave the attention sink at position 0 out of the statistics.

#include <torch/torch.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "common/error.h"
#include "common/job.h"
#include "engine/recipe_catalog.h"
#include "model/backbone/backbone.h"
#include "model/diffusion/brownian_bridge.h"
#include "model/diffusion/embedding_rounding.h"
#include "recipes/bridge/bridge_files.h"
#include "recipes/bridge/bridge_source.h"
#include "recipes/bridge/hybrid_generation.h"
#include "support/bridge_fixture.h"
#include "support/model_test_folders.h"
#include "support/temp_dir.h"
#include "support/training_fixture.h"

namespace strata::recipes {
namespace {
namespace fs = std::filesystem;

TEST(BrownianBridge, MarginalIsTheTargetAtZeroAndTheConditionAtOne) {
  torch::manual_seed(1);
  const torch::Tensor x0 = torch::randn({2, 5, 3}), x1 = torch::randn({2, 5, 3});
  const model::BridgeMarginal ends =
      model::brownianBridgeMarginal(x0, x1, torch::tensor({0.0F, 1.0F}), 2.0);
  EXPECT_TRUE(torch::equal(ends.xt[0], x0[0]));
  EXPECT_TRUE(torch::equal(ends.xt[1], x1[1]));
  // In between: mean (1 − t)·x0 + t·x1 plus σ√(t(1 − t)) of the noise.
  const model::BridgeMarginal middle =
      model::brownianBridgeMarginal(x0, x1, torch::tensor({0.5F, 0.25F}), 2.0);
  EXPECT_TRUE(torch::allclose(middle.xt[0], 0.5 * x0[0] + 0.5 * x1[0] + 1.0 * middle.epsilon[0]));
  EXPECT_TRUE(torch::allclose(middle.xt[1], 0.75 * x0[1] + 0.25 * x1[1] +
                                                2.0 * std::sqrt(0.25 * 0.75) * middle.epsilon[1]));
}

TEST(BrownianBridge, TheSamplerStartsAtTheConditionAndEndsAtTheEstimate) {
  torch::manual_seed(2);
  const torch::Tensor x1 = torch::randn({2, 4, 3}), estimate = torch::randn({2, 4, 3});
  std::vector<torch::Tensor> seenX;
  std::vector<double> seenT;
  const model::DenoiserFunction model = [&](const torch::Tensor& x, const torch::Tensor& t) {
    seenX.push_back(x.clone());
    seenT.push_back(t[0].item<double>());
    return estimate;
  };
  for (const double eta : {0.0, 1.0}) {
    seenX.clear();
    seenT.clear();
    const torch::Tensor out = model::brownianBridgeSample(model, x1, 4, eta, 1.0);
    ASSERT_EQ(seenX.size(), 4u);
    EXPECT_TRUE(torch::equal(seenX[0], x1));
    EXPECT_DOUBLE_EQ(seenT[0], 1.0);
    EXPECT_DOUBLE_EQ(seenT[3], 0.25);
    EXPECT_TRUE(torch::equal(out, estimate));
  }
  // σ = 0: the straight line from x1 to x̂0, nothing drawn.
  seenX.clear();
  model::brownianBridgeSample(model, x1, 2, 0.0, 0.0);
  EXPECT_TRUE(torch::allclose(seenX[1], 0.5 * x1 + 0.5 * estimate));
}

TEST(BridgeProcessSettings, TheBridgeNeedsX0PredictionAndACondition) {
  engine::ResolvedConfig config = testing::tinyBridgeConfig("corpus.txt", 1);
  config.set("process", std::string("bridge"));
  EXPECT_EQ(bridgeDiffusionFrom(config).process, DiffusionProcess::Bridge);
  config.set("prediction", std::string("eps"));
  EXPECT_THROW(bridgeDiffusionFrom(config), ConfigError);
  config.set("prediction", std::string("x0"));
  config.set("condition", std::string("none"));
  EXPECT_THROW(bridgeDiffusionFrom(config), ConfigError);
}

class BridgeProcess : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_dir = new TempDir;
    testing::writeToyCorpus(corpus());
    s_summary = testing::trainRecipe("bridge", config(), run());
  }
  static void TearDownTestSuite() {
    delete s_dir;
    s_dir = nullptr;
  }
  static engine::ResolvedConfig config() {
    engine::ResolvedConfig c = testing::tinyBridgeConfig(corpus(), 1);
    c.set("process", std::string("bridge"));
    return c;
  }
  static fs::path corpus() { return *s_dir / "corpus.txt"; }
  static fs::path run() { return *s_dir / "bridge"; }
  static inline TempDir* s_dir = nullptr;
  static inline engine::TrainingSummary s_summary;
};

TEST_F(BridgeProcess, LearnsToRebuildTheHiddenStateFromTheCondition) {
  testing::expectLossFalls(run());
  // The untrained denoiser outputs 0 (its output layer starts at zero), so its sampled x̂0 is
  // 0 and its val MSE is the targets' mean square, ≈ 1 after normalisation.
  const double mse = s_summary.lastMetrics.at("val_mse");
  EXPECT_LT(mse, 0.8);
  EXPECT_GT(s_summary.lastMetrics.at("val_cosine"), 0.3);
}

TEST_F(BridgeProcess, AStoppedRunResumesExactly) { testing::expectResumesExactly(config(), run()); }

TEST_F(BridgeProcess, GeneratesText) {
  HybridComparisonConfig generation;
  generation.bridgeRun = run();
  generation.prompts = {"the cat "};
  generation.sampling.maxNewTokens = 3;
  generation.original = false;
  NullProgressSink sink;
  JobContext job(sink, CancellationToken());
  const HybridComparison result = compareHybridGeneration(generation, job);
  ASSERT_EQ(result.prompts.size(), 1u);
  EXPECT_EQ(result.prompts[0].hybrid.tokens.size(), 3u);
  EXPECT_GT(result.hybridGenPpl, 1.0);
}

TEST(EmbeddingBaseline, TheDenoiserNeverSeesTheCleanEmbeddings) {
  torch::manual_seed(3);
  model::BridgeDenoiserConfig shape;
  shape.dataDim = shape.condDim = 8;
  shape.width = 16;
  shape.depth = 1;
  shape.heads = 2;
  model::BridgeDenoiser denoiser(shape);
  for (auto& p : denoiser->parameters()) p.data().normal_(0, 0.3);  // the output layer too
  BridgeStatistics stats;
  stats.target = stats.condition = {torch::zeros({8}), torch::ones({8}), "test"};
  BridgeDiffusion diffusion;
  const torch::Tensor x0 = torch::randn({2, 5, 8});
  for (const bool conditioned : {false, true}) {
    diffusion.conditioned = conditioned;
    // The clean h_0 is the baseline's target; only the condition path may carry it to the input.
    const torch::Tensor h0 = x0.clone().requires_grad_(true);
    bridgeLoss(denoiser, x0, stats.conditionInput(h0, diffusion.conditioned), diffusion).backward();
    const bool reached = h0.grad().defined() && h0.grad().abs().max().item<double>() > 0;
    EXPECT_EQ(reached, conditioned);
  }
}

TEST(EmbeddingBaseline, GeneratesByRoundingItsSampledEmbeddings) {
  TempDir dir;
  testing::writeToyCorpus(dir / "corpus.txt");
  engine::ResolvedConfig config = testing::tinyBridgeConfig(dir / "corpus.txt", 0);
  config.set("condition", std::string("none"));
  config.set("steps", int64_t{20});
  const engine::TrainingSummary summary = testing::trainRecipe("bridge", config, dir / "run");
  const double accuracy = summary.lastMetrics.at("val_rounding_accuracy");
  EXPECT_GE(accuracy, 0.0);
  EXPECT_LE(accuracy, 1.0);
  HybridComparisonConfig generation;
  generation.bridgeRun = dir / "run";
  generation.prompts = {"the cat "};
  generation.sampling.maxNewTokens = 3;
  NullProgressSink sink;
  JobContext job(sink, CancellationToken());
  const HybridComparison result = compareHybridGeneration(generation, job);
  EXPECT_TRUE(result.embeddingDiffusion);
  ASSERT_EQ(result.prompts[0].hybrid.tokens.size(), 3u);
  // Same seed, same text: the noise comes from the sampling seed.
  EXPECT_EQ(compareHybridGeneration(generation, job).prompts[0].hybrid.tokens,
            result.prompts[0].hybrid.tokens);
}

TEST(EmbeddingRounding, ExactEmbeddingsRoundToTheirTokens) {
  const auto model = model::Backbone::load(testing::defaultModelFolder());
  const torch::Tensor ids = torch::randint(0, 258, {3, 20}, torch::kInt64);
  torch::NoGradGuard noGrad;
  EXPECT_TRUE(torch::equal(model::EmbeddingRounding(*model).tokens(model->embed(ids)), ids));
  // GPT-2 adds learned positions to h_0: rounding removes each position's own offset.
  TempDir dir;
  testing::RandomBackboneSpec spec;
  spec.architecture = io::Architecture::Gpt2;
  testing::writeRandomBackbone(dir / "gpt2", spec);
  const auto gpt2 = model::Backbone::load(dir / "gpt2");
  const torch::Tensor small = torch::randint(0, testing::kRandomVocab, {2, 12}, torch::kInt64);
  EXPECT_TRUE(torch::equal(model::EmbeddingRounding(*gpt2).tokens(gpt2->embed(small)), small));
}

TEST(BridgeWindows, TheStatisticsLeaveOutTheAttentionSinkAtPositionZero) {
  const BridgeSource source(testing::defaultModelFolder(), 2, torch::kCPU);
  std::vector<int32_t> tokens;
  for (int i = 0; i < 600; ++i) tokens.push_back(static_cast<int32_t>((i * 37 + i / 7) % 256));
  const int64_t seqLen = 16, windows = 5;
  const BridgeStatistics stats = source.statistics(std::nullopt, tokens, seqLen, 9, windows);
  const BridgeWindows cut = source.windows(statisticsWindows(tokens, seqLen, 9, 0, windows));
  EXPECT_EQ(cut.exactPositions, 1);
  const torch::Tensor target = cut.target.slice(1, 1).reshape({-1, 128}).to(torch::kDouble);
  const torch::Tensor condition = cut.condition.slice(1, 1).reshape({-1, 128}).to(torch::kDouble);
  EXPECT_TRUE(torch::allclose(stats.target.mean.to(torch::kDouble), target.mean(0), 1e-4, 1e-5));
  EXPECT_TRUE(
      torch::allclose(stats.target.std.to(torch::kDouble), target.std(0, false), 1e-4, 1e-5));
  EXPECT_TRUE(
      torch::allclose(stats.condition.mean.to(torch::kDouble), condition.mean(0), 1e-4, 1e-5));
}

}  // namespace
}  // namespace strata::recipes
