// The attention masks of MDLM / BDLM / DCDM as a specification: each rule of dcdm_masks.h on a
// case small enough to check by hand, BDLM against BD3-LM's block_diff_mask written out element by
// element (bd3lm_reference.h), the MDLM special case, and the no-leakage invariant as reachability
// through any number of layers.

#include "model/diffusion/dcdm_masks.h"

#include <torch/torch.h>
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "support/bd3lm_reference.h"

namespace strata::model {

namespace {

torch::Tensor ids(const std::vector<int64_t>& values) {
  return torch::tensor(values, torch::kLong).unsqueeze(0);
}

// Rows are queries, columns keys; 1 = allowed.
torch::Tensor allowed(const std::vector<std::vector<int>>& rows) {
  std::vector<int64_t> flat;
  for (const auto& row : rows) flat.insert(flat.end(), row.begin(), row.end());
  const auto n = static_cast<int64_t>(rows.size());
  return torch::tensor(flat).view({n, n}).to(torch::kBool);
}

// The allowed pattern of an additive mask [1, 1, T, T], checking it holds only 0 and −inf.
torch::Tensor pattern(const torch::Tensor& mask) {
  EXPECT_EQ(mask.scalar_type(), torch::kFloat);
  EXPECT_TRUE((mask.eq(0) | mask.isneginf()).all().item<bool>());
  return mask[0][0].eq(0);
}

TEST(DcdmMasks, PositionalChunkIdsArePositionOverBlockSize) {
  EXPECT_TRUE(
      torch::equal(positionalChunkIds(7, 3), torch::tensor({0, 0, 0, 1, 1, 1, 2}, torch::kLong)));
  EXPECT_TRUE(torch::equal(positionalChunkIds(4, 1), torch::arange(4, torch::kLong)));
  EXPECT_THROW(positionalChunkIds(4, 0), std::invalid_argument);
}

TEST(DcdmMasks, ChunkCausalMaskLetsATokenSeeItsOwnAndEarlierChunks) {
  const torch::Tensor mask = chunkCausalMask(ids({1, 0, 1, 2}));
  EXPECT_EQ(mask.sizes(), (std::vector<int64_t>{1, 1, 4, 4}));
  EXPECT_TRUE(torch::equal(pattern(mask), allowed({{1, 1, 1, 0},      // chunk 1: 0, 1 and 2
                                                   {0, 1, 0, 0},      // chunk 0: only itself
                                                   {1, 1, 1, 0},      // chunk 1
                                                   {1, 1, 1, 1}})));  // chunk 2: everything
}

TEST(DcdmMasks, BlockDiffusionFollowsTheFourRulesByHand) {
  // T = 3, chunks (1, 0, 1).
  const torch::Tensor mask = blockDiffusionMask(ids({1, 0, 1}));
  EXPECT_EQ(mask.sizes(), (std::vector<int64_t>{1, 1, 6, 6}));
  //                                 noisy keys  clean keys
  EXPECT_TRUE(torch::equal(pattern(mask),
                           allowed({{1, 0, 1, /**/ 0, 1, 0},  // noisy 0: chunk 1 + clean chunk 0
                                    {0, 1, 0, /**/ 0, 0, 0},  // noisy 1: chunk 0 only
                                    {1, 0, 1, /**/ 0, 1, 0},  // noisy 2
                                    {0, 0, 0, /**/ 1, 1, 1},  // clean 0: chunks <= 1
                                    {0, 0, 0, /**/ 0, 1, 0},  // clean 1: chunk 0
                                    {0, 0, 0, /**/ 1, 1, 1}})));  // clean 2
  EXPECT_TRUE(torch::equal(blockDiffusionAllowed(ids({1, 0, 1}))[0], pattern(mask)));
}

TEST(DcdmMasks, BlockDiffusionRowsOfEachSequenceUseItsOwnIds) {
  const torch::Tensor chunkIds = torch::tensor({0, 1, 1, 0}, torch::kLong).view({2, 2});
  const torch::Tensor mask = blockDiffusionMask(chunkIds);
  EXPECT_TRUE(torch::equal(mask[0][0].eq(0), allowed({{1, 0, /**/ 0, 0},  // ids (0, 1)
                                                      {0, 1, /**/ 1, 0},
                                                      {0, 0, /**/ 1, 0},
                                                      {0, 0, /**/ 1, 1}})));
  EXPECT_TRUE(torch::equal(mask[1][0].eq(0), allowed({{1, 0, /**/ 0, 1},  // ids (1, 0)
                                                      {0, 1, /**/ 0, 0},
                                                      {0, 0, /**/ 1, 1},
                                                      {0, 0, /**/ 0, 1}})));
}

TEST(DcdmMasks, BdlmIdsGiveExactlyBd3lmsBlockDiffMask) {
  for (const auto& [length, blockSize] : std::vector<std::pair<int64_t, int64_t>>{
           {8, 2}, {7, 3}, {10, 4}, {5, 5}, {6, 1}, {9, 16}, {13, 5}}) {
    const torch::Tensor visible =
        pattern(blockDiffusionMask(positionalChunkIds(length, blockSize).unsqueeze(0)));
    ASSERT_EQ(visible.size(0), 2 * length);
    for (int64_t q = 0; q < 2 * length; ++q)
      for (int64_t kv = 0; kv < 2 * length; ++kv)
        ASSERT_EQ(visible[q][kv].item<bool>(),
                  testing::bd3lmBlockDiffMask(q, kv, blockSize, length))
            << "L " << length << " B " << blockSize << " q " << q << " kv " << kv;
  }
}

TEST(DcdmMasks, MdlmIdsLetTheNoisyStreamSeeAllNoisyTokensAndNoCleanOne) {
  const int64_t length = 6;
  const torch::Tensor visible =
      pattern(blockDiffusionMask(torch::zeros({1, length}, torch::kLong)));
  EXPECT_TRUE(visible.slice(0, 0, length).slice(1, 0, length).all().item<bool>());
  EXPECT_FALSE(visible.slice(0, 0, length).slice(1, length).any().item<bool>());
}

TEST(DcdmMasks, NoNoisyQueryReachesACleanTokenOfItsOwnOrALaterChunk) {
  torch::manual_seed(3);
  const int64_t length = 12;
  int earlierReached = 0;
  for (int trial = 0; trial < 20; ++trial) {
    const torch::Tensor chunkIds = torch::randint(0, 4, {1, length}, torch::kLong);
    // Transitive closure of "attends to": what a query depends on after any number of layers.
    torch::Tensor reach = pattern(blockDiffusionMask(chunkIds)).to(torch::kFloat);
    for (int step = 0; step < 6; ++step) reach = (reach + reach.matmul(reach)).clamp_max(1.0);
    const torch::Tensor noisyToClean = reach.slice(0, 0, length).slice(1, length).gt(0);  // [q, k]
    const torch::Tensor c = chunkIds[0];
    const torch::Tensor ownOrLater = c.unsqueeze(0).ge(c.unsqueeze(1));  // c_k >= c_q
    EXPECT_FALSE((noisyToClean & ownOrLater).any().item<bool>()) << "trial " << trial;
    // ... and every clean token of every earlier chunk is read (BD3-LM's full clean context).
    EXPECT_TRUE(torch::equal(noisyToClean, ownOrLater.logical_not())) << "trial " << trial;
    earlierReached += noisyToClean.any().item<bool>();
  }
  EXPECT_GT(earlierReached, 0);
}

TEST(DcdmMasks, RejectsFloatIds) {
  EXPECT_THROW(blockDiffusionMask(torch::zeros({1, 2})), std::invalid_argument);
  EXPECT_THROW(chunkCausalMask(torch::zeros({1, 2})), std::invalid_argument);
}

}  // namespace
}  // namespace strata::model
