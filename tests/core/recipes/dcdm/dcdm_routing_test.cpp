// Chunk-sequential routing (model/diffusion/chunk_layout.h) as a specification: chunk membership
// and every routing quantity of chunk c depend only on the clean tokens of chunks < c, so neither
// the router nor the block-diffusion mask leaks a clean token into the noisy stream of its own
// or an earlier chunk; pinned positions (the sampler's prompt) land in chunk 0.

#include <torch/torch.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/diffusion/block_diffusion.h"
#include "model/diffusion/chunk_layout.h"
#include "model/diffusion/dcdm_transformer.h"

namespace strata::recipes {
namespace {

constexpr int64_t kVocab = 11, kChunks = 4, kLength = 16;

model::DcdmTransformer tinyDcdm(uint64_t seed) {
  torch::manual_seed(seed);
  model::DcdmTransformerConfig config;
  config.vocab = kVocab;
  config.dim = 16;
  config.layers = 2;
  config.heads = 2;
  config.mlp = 32;
  config.maxPositions = 32;
  config.variant = model::DlmVariant::Dcdm;
  config.chunks = kChunks;
  config.subspaceRank = 2;
  model::DcdmTransformer model(config);
  {  // Larger embeddings than GPT-2's 0.02, so that position and content visibly move the
     // routing (at 0.02 every token of pass 0 looks alike and all join chunk 0).
    torch::NoGradGuard noGrad;
    model->named_parameters()["embedding.weight"].normal_(0.0, 1.0);
    model->named_parameters()["positions.weight"].normal_(0.0, 1.0);
  }
  return model;
}

TEST(ChunkSequentialRouting, ChangingACleanTokenOfChunkCNeverMovesAChunkUpToC) {
  model::DcdmTransformer model = tinyDcdm(21);
  torch::NoGradGuard noGrad;
  int moved = 0, checked = 0;
  for (int trial = 0; trial < 4; ++trial) {
    const torch::Tensor x0 = torch::randint(0, kVocab, {1, kLength}, torch::kLong);
    const model::ChunkLayout before = model->chunkLayout(x0);
    EXPECT_GT(torch::bincount(before.ids.view({-1})).gt(0).sum().item<int64_t>(), 1)
        << "trial " << trial;
    for (int64_t p = 0; p < kLength; ++p) {
      const int64_t c = before.ids[0][p].item<int64_t>();
      torch::Tensor changed = x0.clone();
      changed[0][p] = (x0[0][p].item<int64_t>() + 1 + trial) % kVocab;
      const model::ChunkLayout after = model->chunkLayout(changed);
      const torch::Tensor upToC = before.ids.le(c) | after.ids.le(c);
      EXPECT_TRUE(torch::equal(before.ids.masked_select(upToC), after.ids.masked_select(upToC)))
          << "trial " << trial << " position " << p << " chunk " << c;
      // The routing rows of those tokens (the soft order bias, the balance loss's affinities)
      // are bit for bit the same: they come from passes that never saw position p's token.
      const torch::Tensor rows = before.ids.le(c)[0];
      EXPECT_TRUE(
          torch::equal(before.orderBias[0].index({rows}), after.orderBias[0].index({rows})));
      EXPECT_TRUE(torch::equal(before.affinity[0].index({rows}), after.affinity[0].index({rows})));
      moved +=
          !torch::equal(before.ids, after.ids);  // later chunks may move: routing reads content
      ++checked;
    }
  }
  EXPECT_GT(moved, 0) << "no change of content moved any chunk: the test would prove nothing";
  EXPECT_EQ(checked, 4 * kLength);
}

TEST(ChunkSequentialRouting, ChunkCLogitsIgnoreTheCleanTokensOfChunkCAndLaterEndToEnd) {
  // Routing, noise and the block-diffusion forward together: replacing the clean token of a
  // masked position leaves the logits of every chunk up to that position's chunk unchanged.
  model::DcdmTransformer model = tinyDcdm(22);
  torch::NoGradGuard noGrad;
  const torch::Tensor x0 = torch::randint(0, kVocab, {1, kLength}, torch::kLong);
  const model::ChunkLayout layout = model->chunkLayout(x0);
  const torch::Tensor noised = torch::rand({1, kLength}) < 0.5;
  int checked = 0;
  for (int64_t p = 0; p < kLength; ++p) {
    if (!noised[0][p].item<bool>()) continue;
    const int64_t c = layout.ids[0][p].item<int64_t>();
    torch::Tensor changed = x0.clone();
    changed[0][p] = (x0[0][p].item<int64_t>() + 3) % kVocab;
    const torch::Tensor xt = x0.masked_fill(noised, kVocab);  // the same x_t: p is masked
    const torch::Tensor before = model->forwardTraining(xt, x0, layout);
    const model::ChunkLayout changedLayout = model->chunkLayout(changed);
    const torch::Tensor after = model->forwardTraining(xt, changed, changedLayout);
    const torch::Tensor rows = layout.ids.le(c)[0];
    EXPECT_TRUE(torch::equal(before[0].index({rows}), after[0].index({rows}))) << "position " << p;
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

TEST(ChunkSequentialRouting, EveryPositionGetsAChunkAndPinnedOnesChunkZero) {
  model::DcdmTransformer model = tinyDcdm(23);
  torch::NoGradGuard noGrad;
  const torch::Tensor x0 = torch::randint(0, kVocab, {2, kLength}, torch::kLong);
  const torch::Tensor pinned = torch::arange(kLength).lt(5).unsqueeze(0).expand({2, kLength});
  const model::ChunkLayout layout = model->chunkLayout(x0, pinned);
  EXPECT_TRUE(layout.ids.masked_select(pinned).eq(0).all().item<bool>());
  EXPECT_TRUE((layout.ids.ge(0) & layout.ids.lt(kChunks)).all().item<bool>());
  // Pass 0 reads no clean token: with nothing pinned, chunk 0's members do not depend on x0.
  const model::ChunkLayout a = model->chunkLayout(x0),
                           b = model->chunkLayout(torch::randint(0, kVocab, {2, kLength}));
  EXPECT_TRUE(torch::equal(a.ids.eq(0), b.ids.eq(0)));
}

}  // namespace
}  // namespace strata::recipes
