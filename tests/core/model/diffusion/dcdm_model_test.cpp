// The DCDM model as a specification: Chunking Attention's routing, balancing and parameter
// budget; block diffusion over chunks — BDLM's training mask is BD3-LM's, one t per block,
// BDLM = DCDM with positional chunk ids (logits and loss), no gradient from a chunk's loss to
// the clean tokens of its own or later chunks; training logits equal to sampling logits where
// earlier chunks are clean.

#include <torch/torch.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "model/diffusion/block_diffusion.h"
#include "model/diffusion/chunk_layout.h"
#include "model/diffusion/chunk_router.h"
#include "model/diffusion/dcdm_masks.h"
#include "model/diffusion/dcdm_transformer.h"
#include "support/bd3lm_reference.h"
#include "support/module_parameters.h"

namespace strata::model {

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
  config.variant = parseDlmVariant(variant);
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

// Σ cross-entropy over the flagged positions: the MDLM loss without its time weight.
torch::Tensor maskedLoss(const torch::Tensor& logits, const torch::Tensor& x0,
                         const torch::Tensor& flags) {
  const torch::Tensor nll = torch::nn::functional::cross_entropy(
      logits.reshape({-1, kVocab}), x0.reshape({-1}),
      torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kNone));
  return (nll * flags.reshape({-1}).to(torch::kFloat)).sum();
}

torch::Tensor positionalIds(int64_t batch, int64_t blockSize) {
  return positionalChunkIds(kLength, blockSize).unsqueeze(0).expand({batch, kLength}).contiguous();
}

TEST(DcdmTransformer, EveryVariantGivesVocabLogitsAndItsChunkLayout) {
  for (const std::string variant : {"mdlm", "bdlm", "dcdm"}) {
    torch::manual_seed(0);
    DcdmTransformer model(tinyConfig(variant));
    const Batch b = randomBatch(2, 0.5);
    const ChunkLayout layout = model->chunkLayout(b.x0);
    const torch::Tensor logits = model->forwardTraining(b.xt, b.x0, layout);
    EXPECT_EQ(logits.sizes(), (std::vector<int64_t>{2, kLength, kVocab})) << variant;
    EXPECT_EQ(layout.ids.sizes(), (std::vector<int64_t>{2, kLength})) << variant;
    EXPECT_EQ(layout.orderBias.defined(), variant == "dcdm") << variant;
    EXPECT_EQ(model->balanceLoss(layout).item<float>() != 0.0f, variant == "dcdm") << variant;
    if (variant == "bdlm") {
      EXPECT_TRUE(torch::equal(layout.ids, positionalIds(2, 4)));
      EXPECT_EQ(layout.chunks, 3);
    }
    if (variant == "mdlm") {
      EXPECT_EQ(layout.ids.abs().sum().item<int64_t>(), 0);
      EXPECT_EQ(layout.chunks, 1);
    }
    if (variant == "dcdm") {
      EXPECT_EQ(layout.chunks, kChunks);
      EXPECT_EQ(layout.orderBias.sizes(), (std::vector<int64_t>{2, kLength, kLength}));
      EXPECT_LT(layout.ids.max().item<int64_t>(), kChunks);
      EXPECT_GE(layout.ids.min().item<int64_t>(), 0);
    }
  }
}

TEST(DcdmTransformer, BdlmTrainsWithBd3lmsBlockDiffMask) {
  for (const auto& [length, blockSize] :
       std::vector<std::pair<int64_t, int64_t>>{{12, 4}, {11, 3}, {7, 8}}) {
    DcdmTransformerConfig config = tinyConfig("bdlm");
    config.blockSize = blockSize;
    DcdmTransformer bdlm(config);
    const torch::Tensor x0 = torch::randint(0, kVocab, {2, length}, torch::kLong);
    const torch::Tensor mask = bdlm->trainingMask(bdlm->chunkLayout(x0));
    ASSERT_EQ(mask.sizes(), (std::vector<int64_t>{2, 1, 2 * length, 2 * length}));
    for (int64_t s = 0; s < 2; ++s)
      for (int64_t q = 0; q < 2 * length; ++q)
        for (int64_t kv = 0; kv < 2 * length; ++kv)
          ASSERT_EQ(mask[s][0][q][kv].item<float>() == 0.0f,
                    testing::bd3lmBlockDiffMask(q, kv, blockSize, length))
              << "L " << length << " B " << blockSize << " q " << q << " kv " << kv;
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
  const torch::Tensor x0 = torch::randint(0, kVocab, {3, kLength}, torch::kLong);
  const MaskedDiffusion diffusion;
  torch::manual_seed(7);
  const BlockDiffusionBatch expected = blockDiffusionBatch(*bdlm, diffusion, x0);
  torch::manual_seed(7);
  const BlockDiffusionBatch actual = blockDiffusionBatch(*dcdm, diffusion, x0, std::nullopt,
                                                         fixedChunkLayout(positionalIds(3, 4), 3));
  EXPECT_TRUE(torch::equal(actual.t, expected.t));
  EXPECT_TRUE(torch::equal(actual.noised, expected.noised));
  EXPECT_TRUE(torch::equal(dcdm->trainingMask(actual.layout), bdlm->trainingMask(expected.layout)));
  EXPECT_TRUE(torch::equal(actual.logits, expected.logits));
  EXPECT_EQ(actual.loss.loss.item<float>(), expected.loss.loss.item<float>());
  EXPECT_GT(expected.loss.loss.item<float>(), 0.0f);
  EXPECT_TRUE(torch::equal(dcdm->forwardSampling(expected.xt, actual.layout),
                           bdlm->forwardSampling(expected.xt, expected.layout)));
}

TEST(DcdmTransformer, EveryTokenOfABlockSharesOneTimeAntitheticOverBatchTimesBlocks) {
  torch::manual_seed(8);
  DcdmTransformer bdlm(tinyConfig("bdlm"));  // blocks of 4 over 12 tokens: 3 per sequence
  const int64_t batch = 5, blocks = 3, slots = batch * blocks;
  const torch::Tensor x0 = torch::randint(0, kVocab, {batch, kLength}, torch::kLong);
  const MaskedDiffusion diffusion;
  const BlockDiffusionBatch b = blockDiffusionBatch(*bdlm, diffusion, x0);
  ASSERT_EQ(b.t.sizes(), (std::vector<int64_t>{batch, kLength}));
  std::vector<double> perBlock;
  for (int64_t s = 0; s < batch; ++s)
    for (int64_t block = 0; block < blocks; ++block) {
      const torch::Tensor times = b.t[s].slice(0, 4 * block, 4 * block + 4);
      EXPECT_TRUE(times.eq(times[0]).all().item<bool>()) << s << " " << block;
      perBlock.push_back(times[0].item<double>());
    }
  // Antithetic over batch × blocks: one u = (t − ε)/(1 − ε) in each stratum [j/15, (j+1)/15).
  std::sort(perBlock.begin(), perBlock.end());
  for (int64_t j = 0; j < slots; ++j) {
    const double u = (perBlock[static_cast<size_t>(j)] - 1e-3) / (1 - 1e-3);
    EXPECT_GE(u, j / static_cast<double>(slots) - 1e-6) << j;
    EXPECT_LT(u, (j + 1) / static_cast<double>(slots) + 1e-6) << j;
  }
  // Exactly BD3-LM's _sample_t: rand [B, nb], (u/(B·nb) + arange(B·nb)/(B·nb)) mod 1, mapped to
  // [ε, 1], repeated over each block's tokens.
  torch::manual_seed(9);
  const torch::Tensor drawn =
      diffusion.sampleChunkTimes(positionalIds(batch, 4), blocks, torch::kFloat);
  torch::manual_seed(9);
  const torch::Tensor eps = torch::rand({batch, blocks});
  const torch::Tensor offset =
      (torch::arange(slots) / static_cast<double>(slots)).view({batch, blocks});
  const torch::Tensor reference =
      (torch::remainder(eps / static_cast<double>(slots) + offset, 1.0) * (1 - 1e-3) + 1e-3)
          .repeat_interleave(4, 1);
  EXPECT_TRUE(torch::allclose(drawn, reference, 1e-6, 1e-7));
}

TEST(DcdmTransformer, ChunkCLossHasNoGradientToCleanTokensOfChunkCOrLater) {
  for (const std::string variant : {"bdlm", "dcdm"}) {
    torch::manual_seed(2);
    DcdmTransformer model(tinyConfig(variant));
    const Batch b = randomBatch(3, 0.5);
    const ChunkLayout layout = model->chunkLayout(b.x0);
    const torch::Tensor noisy = model->embed(b.xt).detach();
    const torch::Tensor clean = model->embed(b.x0).detach().requires_grad_(true);
    const torch::Tensor logits = model->forwardEmbedded(noisy, clean, layout);
    int checked = 0, earlierRead = 0;
    for (int64_t c = 0; c < layout.ids.max().item<int64_t>() + 1; ++c) {
      const torch::Tensor inChunk = layout.ids.eq(c) & b.noised;
      if (!inChunk.any().item<bool>()) continue;
      const torch::Tensor grad = torch::autograd::grad({maskedLoss(logits, b.x0, inChunk)}, {clean},
                                                       {}, true, false, true)[0];
      ASSERT_TRUE(grad.defined()) << variant;
      const torch::Tensor perPosition = grad.abs().sum(-1);  // [B, T]
      EXPECT_EQ(perPosition.masked_select(layout.ids.ge(c)).max().item<float>(), 0.0f)
          << variant << " chunk " << c;
      ++checked;
      // Every clean token of an earlier chunk, in a sequence with masked chunk-c tokens, is read.
      for (int64_t s = 0; s < 3; ++s) {
        if (!inChunk[s].any().item<bool>()) continue;
        const torch::Tensor earlier = layout.ids[s].lt(c);
        if (!earlier.any().item<bool>()) continue;
        EXPECT_GT(perPosition[s].masked_select(earlier).min().item<float>(), 0.0f)
            << variant << " chunk " << c << " sequence " << s;
        ++earlierRead;
      }
    }
    EXPECT_GE(checked, 2) << variant;
    EXPECT_GT(earlierRead, 0) << variant;
  }
}

TEST(DcdmTransformer, TrainingLogitsEqualSamplingLogitsWhenEarlierChunksAreClean) {
  for (const std::string variant : {"bdlm", "dcdm"}) {
    torch::manual_seed(3);
    DcdmTransformer model(tinyConfig(variant));
    const torch::Tensor x0 = torch::randint(0, kVocab, {2, kLength}, torch::kLong);
    const ChunkLayout layout = model->chunkLayout(x0);
    const int64_t c =
        1;  // decoding chunk 1: chunk 0 clean, chunk 1 partly masked, later all masked
    const torch::Tensor noised =
        layout.ids.gt(c) | (layout.ids.eq(c) & (torch::rand({2, kLength}) < 0.7));
    const torch::Tensor xt = x0.masked_fill(noised, kVocab);
    const torch::Tensor training = model->forwardTraining(xt, x0, layout);
    // The sampler lays out the sequence it is decoding; chunks <= c come out as in training.
    const ChunkLayout sampled = model->chunkLayout(xt);
    const torch::Tensor rows = layout.ids.le(c);
    ASSERT_TRUE(rows.any().item<bool>()) << variant;
    EXPECT_TRUE(torch::equal(sampled.ids.masked_select(rows), layout.ids.masked_select(rows)))
        << variant;
    const torch::Tensor sampling = model->forwardSampling(xt, sampled);
    EXPECT_TRUE(torch::allclose(training.index({rows}), sampling.index({rows}), 1e-5, 1e-5))
        << variant;
  }
}

TEST(DcdmTransformer, RouterLearnsFromTheDiffusionLossThroughTheSoftPath) {
  torch::manual_seed(4);
  DcdmTransformer model(tinyConfig("dcdm"));
  const Batch b = randomBatch(2, 0.5);
  maskedLoss(model->forwardTraining(b.xt, b.x0, model->chunkLayout(b.x0)), b.x0, b.noised)
      .backward();
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

TEST(DcdmTransformer, ItsConfigCountsItsParametersWithoutBuildingIt) {
  for (const DlmVariant variant : {DlmVariant::Dcdm, DlmVariant::Bdlm, DlmVariant::Mdlm}) {
    DcdmTransformerConfig config;
    config.vocab = 258;
    config.dim = 48;
    config.layers = 3;
    config.heads = 4;
    config.mlp = 80;
    config.maxPositions = 64;
    config.variant = variant;
    config.chunks = 5;
    config.subspaceRank = 3;
    EXPECT_EQ(config.parameterCount(), testing::builtParameters(*DcdmTransformer(config)))
        << dlmVariantName(variant);
  }
}

}  // namespace
}  // namespace strata::model
