// The DCDM model as a specification: Chunking Attention's routing, balancing and parameter
// budget; BDLM as DCDM with positional chunk ids; no leakage of masked clean tokens in any
// variant; training logits equal to sampling logits where earlier chunks are clean.

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <string>
#include <vector>

#include "model/chunk_router.h"
#include "model/dcdm_masks.h"
#include "model/dcdm_transformer.h"

namespace strata {
namespace {

constexpr int64_t kVocab = 11, kDim = 16, kChunks = 4, kRank = 2, kLength = 12;

DcdmTransformerConfig tinyConfig(const std::string& variant) {
  DcdmTransformerConfig config;
  config.vocab = kVocab;
  config.dim = kDim;
  config.layers = 2;
  config.heads = 2;
  config.mlp = 32;
  config.maxPositions = 32;
  config.variant = variant;
  config.blockSize = 4;
  config.chunks = kChunks;
  config.subspaceRank = kRank;
  return config;
}

ChunkRouterConfig routerConfig() {
  ChunkRouterConfig config;
  config.dim = kDim;
  config.chunks = kChunks;
  config.rank = kRank;
  return config;
}

struct Batch {
  torch::Tensor x0, noised, xt;
};

Batch randomBatch(int64_t batch, double maskRate) {
  Batch b;
  b.x0 = torch::randint(0, kVocab, {batch, kLength}, torch::kLong);
  b.noised = torch::rand({batch, kLength}) < maskRate;
  b.xt = b.x0.masked_fill(b.noised, kVocab);
  return b;
}

// Σ cross-entropy over masked positions: the MDLM loss without its time weight.
torch::Tensor maskedLoss(const torch::Tensor& logits, const Batch& b) {
  const torch::Tensor nll = torch::nn::functional::cross_entropy(
      logits.reshape({-1, kVocab}), b.x0.reshape({-1}),
      torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kNone));
  return (nll * b.noised.reshape({-1}).to(torch::kFloat)).sum();
}

torch::Tensor positionalIds(int64_t batch, int64_t blockSize) {
  return positionalChunkIds(kLength, blockSize).unsqueeze(0).expand({batch, kLength}).contiguous();
}

TEST(DcdmTransformer, EveryVariantGivesVocabLogitsIdsAndItsBalanceLoss) {
  for (const std::string variant : {"mdlm", "bdlm", "dcdm"}) {
    torch::manual_seed(0);
    DcdmTransformer model(tinyConfig(variant));
    const Batch b = randomBatch(2, 0.5);
    const DcdmTrainingOutput out = model->forwardTraining(b.xt, b.x0, b.noised);
    EXPECT_EQ(out.logits.sizes(), (std::vector<int64_t>{2, kLength, kVocab})) << variant;
    EXPECT_EQ(out.chunkIds.sizes(), (std::vector<int64_t>{2, kLength})) << variant;
    EXPECT_EQ(out.assignments.defined(), variant == "dcdm") << variant;
    if (variant != "dcdm") {
      EXPECT_EQ(out.balanceLoss.item<float>(), 0.0f) << variant;
    }
    if (variant == "bdlm") {
      EXPECT_TRUE(torch::equal(out.chunkIds, positionalIds(2, 4)));
    }
    if (variant == "mdlm") {
      EXPECT_EQ(out.chunkIds.abs().sum().item<int64_t>(), 0);
    }
  }
}

TEST(DcdmTransformer, BdlmIsDcdmWithPositionalChunkIds) {
  torch::manual_seed(1);
  DcdmTransformer bdlm(tinyConfig("bdlm")), dcdm(tinyConfig("dcdm"));
  {  // dcdm = bdlm's weights + a router
    torch::NoGradGuard noGrad;
    auto target = dcdm->named_parameters();
    for (const auto& item : bdlm->named_parameters()) target[item.key()].copy_(item.value());
  }
  const Batch b = randomBatch(3, 0.5);
  DcdmForwardOptions positional;
  positional.chunkIds = positionalIds(3, 4);
  positional.softOrderBias = false;
  const DcdmTrainingOutput expected = bdlm->forwardTraining(b.xt, b.x0, b.noised);
  const DcdmTrainingOutput actual = dcdm->forwardTraining(b.xt, b.x0, b.noised, positional);
  EXPECT_TRUE(torch::equal(dualStreamMask(actual.chunkIds, b.noised),
                           dualStreamMask(expected.chunkIds, b.noised)));
  EXPECT_TRUE(torch::equal(actual.logits, expected.logits));
  EXPECT_EQ(maskedLoss(actual.logits, b).item<float>(),
            maskedLoss(expected.logits, b).item<float>());
  EXPECT_TRUE(torch::equal(dcdm->forwardSampling(b.xt, positional.chunkIds, positional),
                           bdlm->forwardSampling(b.xt, positional.chunkIds)));
}

TEST(DcdmTransformer, MaskedLossHasNoGradientToMaskedCleanTokens) {
  for (const std::string variant : {"mdlm", "bdlm", "dcdm"}) {
    torch::manual_seed(2);
    DcdmTransformer model(tinyConfig(variant));
    const Batch b = randomBatch(2, 0.5);
    const torch::Tensor noisy = model->embed(b.xt).detach();
    const torch::Tensor clean = model->embed(b.x0).detach().requires_grad_(true);
    const DcdmTrainingOutput out = model->forwardEmbedded(noisy, clean, b.noised);
    maskedLoss(out.logits, b).backward();
    const torch::Tensor grad = clean.grad();
    if (variant == "mdlm") {  // the noisy stream sees no clean token at all
      EXPECT_TRUE(!grad.defined() || grad.abs().max().item<float>() == 0.0f);
      continue;
    }
    ASSERT_TRUE(grad.defined()) << variant;
    const torch::Tensor perPosition = grad.abs().sum(-1);  // [B, T]
    EXPECT_EQ(perPosition.masked_select(b.noised).max().item<float>(), 0.0f) << variant;
    // Unmasked positions of a chunk before some masked position's chunk do inform the loss.
    int readable = 0;
    for (int64_t s = 0; s < 2; ++s)
      for (int64_t m = 0; m < kLength; ++m) {
        if (b.noised[s][m].item<bool>()) continue;
        const torch::Tensor later = out.chunkIds[s].gt(out.chunkIds[s][m]) & b.noised[s];
        if (!later.any().item<bool>()) continue;
        ++readable;
        EXPECT_GT(perPosition[s][m].item<float>(), 0.0f) << variant << " " << s << " " << m;
      }
    EXPECT_GT(readable, 0) << variant;
  }
}

TEST(DcdmTransformer, TrainingLogitsEqualSamplingLogitsWhenEarlierChunksAreClean) {
  for (const std::string variant : {"bdlm", "dcdm"}) {
    torch::manual_seed(3);
    DcdmTransformer model(tinyConfig(variant));
    Batch b = randomBatch(2, 0.0);
    const torch::Tensor chunkIds = positionalIds(2, 6);  // two chunks; mask only the second
    b.noised = chunkIds.eq(1) & (torch::rand({2, kLength}) < 0.7);
    b.xt = b.x0.masked_fill(b.noised, kVocab);
    DcdmForwardOptions options;
    options.chunkIds = chunkIds;  // dcdm keeps its soft bias
    const torch::Tensor training = model->forwardTraining(b.xt, b.x0, b.noised, options).logits;
    const torch::Tensor sampling = model->forwardSampling(b.xt, chunkIds);
    EXPECT_TRUE(torch::allclose(training, sampling, 1e-5, 1e-5)) << variant;
  }
}

TEST(DcdmTransformer, RouterLearnsFromTheDiffusionLossThroughTheSoftPath) {
  torch::manual_seed(4);
  DcdmTransformer model(tinyConfig("dcdm"));
  const Batch b = randomBatch(2, 0.5);
  maskedLoss(model->forwardTraining(b.xt, b.x0, b.noised).logits, b).backward();
  for (const auto& item : model->router()->named_parameters()) {
    ASSERT_TRUE(item.value().grad().defined()) << item.key();
    EXPECT_GT(item.value().grad().abs().sum().item<float>(), 0.0f) << item.key();
  }
}

TEST(DcdmTransformer, RouterCostsKdhPlusTwoDSquaredParameters) {
  DcdmTransformer bdlm(tinyConfig("bdlm")), dcdm(tinyConfig("dcdm"));
  const int64_t expected = kChunks * kDim * kRank + 2 * kDim * kDim;
  EXPECT_EQ(dcdm->routerParameterCount(), expected);
  EXPECT_EQ(dcdm->parameterCount() - bdlm->parameterCount(), expected);
  EXPECT_EQ(bdlm->routerParameterCount(), 0);
}

TEST(ChunkRouter, BalanceBiasIsABufferNotAParameter) {
  ChunkRouter router(routerConfig());
  EXPECT_FALSE(router->named_parameters().contains("balance_bias"));
  EXPECT_TRUE(router->named_buffers().contains("balance_bias"));
  EXPECT_FALSE(router->balanceBias().requires_grad());
}

TEST(ChunkRouter, HardIdsFollowTheBalanceBias) {
  torch::manual_seed(5);
  ChunkRouter router(routerConfig());
  const torch::Tensor x = torch::randn({2, kLength, kDim});
  {
    torch::NoGradGuard noGrad;
    router->balanceBias()[2].fill_(1e3);
  }
  EXPECT_TRUE(router(x).ids.eq(2).all().item<bool>());
}

TEST(ChunkRouter, UpdateBalanceBiasRaisesUnderloadedChunks) {
  ChunkRouter router(routerConfig());
  const torch::Tensor ids = torch::tensor({0, 0, 0, 0, 0, 1, 1, 2}, torch::kLong);
  const torch::Tensor loads = chunkLoads(ids, kChunks);  // (5, 2, 1, 0) / 8
  EXPECT_TRUE(torch::allclose(loads, torch::tensor({0.625f, 0.25f, 0.125f, 0.0f})));
  router->updateBalanceBias(loads, 0.1);
  const torch::Tensor bias = router->balanceBias();
  // Over-loaded chunk 0 falls, under-loaded 2 and 3 rise, exactly-loaded 1 stays in between
  // (it moves only by the re-centring).
  EXPECT_LT(bias[0].item<float>(), bias[1].item<float>());
  EXPECT_LT(bias[1].item<float>(), bias[2].item<float>());
  EXPECT_FLOAT_EQ(bias[2].item<float>(), bias[3].item<float>());
  EXPECT_GT(bias[2].item<float>(), 0.0f);
  EXPECT_NEAR(bias.sum().item<float>(), 0.0f, 1e-6);
}

TEST(ChunkRouter, BalanceLossIsZeroForUniformLoadsAndOneForCollapse) {
  ChunkRouter router(routerConfig());
  torch::manual_seed(6);
  // Margins of 50 are far beyond Gumbel noise: the straight-through loads are exact.
  const torch::Tensor chunkOf = torch::arange(kLength) % kChunks;
  const torch::Tensor uniform =
      torch::one_hot(chunkOf, kChunks).to(torch::kFloat).unsqueeze(0) * 50;
  const torch::Tensor collapsed =
      torch::zeros({1, kLength, kChunks}).index_fill(2, torch::tensor({0}, torch::kLong), 50.0);
  EXPECT_NEAR(router->balanceLoss(uniform).item<float>(), 0.0f, 1e-6);
  EXPECT_NEAR(router->balanceLoss(collapsed).item<float>(), 1.0f, 1e-6);
}

TEST(ChunkRouter, BalanceLossReachesTheSubspacesThroughTheStraightThroughEstimator) {
  torch::manual_seed(7);
  ChunkRouter router(routerConfig());
  const torch::Tensor loss =
      router->balanceLoss(router->affinity(torch::randn({2, kLength, kDim})));
  EXPECT_GT(loss.item<float>(), 0.0f);
  loss.backward();
  const torch::Tensor grad = router->subspaces().grad();
  ASSERT_TRUE(grad.defined());
  EXPECT_TRUE(torch::isfinite(grad).all().item<bool>());
  EXPECT_GT(grad.abs().sum().item<float>(), 0.0f);
}

TEST(ChunkRouter, RelationLogProbabilitiesOfSoftAssignments) {
  // Two tokens, K = 2: token 0 surely in chunk 1, token 1 uniform.
  const torch::Tensor p = torch::tensor({0.0f, 1.0f, 0.5f, 0.5f}).view({1, 2, 2});
  const auto at = [&](ChunkRelation r, int l, int m) {
    return std::exp(chunkRelationLogProbability(p, r)[0][l][m].item<double>());
  };
  EXPECT_NEAR(at(ChunkRelation::AtMost, 0, 1), 1.0, 1e-6);  // anything is <= chunk 1
  EXPECT_NEAR(at(ChunkRelation::AtMost, 1, 0), 0.5, 1e-6);  // c_1 = 1 with probability 1/2
  EXPECT_NEAR(at(ChunkRelation::Before, 0, 1), 0.5, 1e-6);
  EXPECT_NEAR(at(ChunkRelation::Same, 0, 1), 0.5, 1e-6);
  EXPECT_NEAR(at(ChunkRelation::AtMost, 1, 1), 1.0, 1e-6);    // a token is in its own chunk
  EXPECT_NEAR(at(ChunkRelation::Before, 1, 0), 1e-9, 1e-12);  // clamped, never log 0
}

TEST(ChunkRouter, RejectsDegenerateShapes) {
  ChunkRouterConfig config = routerConfig();
  config.chunks = 1;
  EXPECT_THROW(ChunkRouter{config}, std::invalid_argument);
  config = routerConfig();
  config.rank = kDim + 1;
  EXPECT_THROW(ChunkRouter{config}, std::invalid_argument);
}

}  // namespace
}  // namespace strata
