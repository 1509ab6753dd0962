// The attention masks of MDLM / BDLM / DCDM as a specification: each rule of dcdm_masks.h on a
// case small enough to check by hand, the MDLM and BDLM special cases, and the no-leakage
// invariant as reachability through any number of layers.

#include "model/dcdm_masks.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <vector>

namespace strata {
namespace {

torch::Tensor ids(const std::vector<int64_t>& values) {
  return torch::tensor(values, torch::kLong).unsqueeze(0);
}

torch::Tensor flags(const std::vector<int>& values) {
  return torch::tensor(std::vector<int64_t>(values.begin(), values.end()))
      .to(torch::kBool)
      .unsqueeze(0);
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

TEST(DcdmMasks, DualStreamFollowsTheFourRulesByHand) {
  // T = 3, chunks (0, 0, 1), positions 1 and 2 masked in x_t.
  const torch::Tensor mask = dualStreamMask(ids({0, 0, 1}), flags({0, 1, 1}));
  EXPECT_EQ(mask.sizes(), (std::vector<int64_t>{1, 1, 6, 6}));
  //                                 noisy keys  clean keys
  EXPECT_TRUE(torch::equal(pattern(mask), allowed({{1, 1, 0, /**/ 0, 0, 0},  // noisy 0: chunk 0
                                                   {1, 1, 0, /**/ 0, 0, 0},  // noisy 1: chunk 0
                                                   {0, 0, 1, /**/ 1, 0, 0},  // noisy 2: + clean 0
                                                   {0, 0, 0, /**/ 1, 0, 0},  // clean 0
                                                   {0, 0, 0, /**/ 1, 1, 0},  // clean 1: 0 + self
                                                   {0, 0, 0, /**/ 1, 0, 1}})));  // clean 2
}

TEST(DcdmMasks, DualStreamRowsOfEachSequenceUseItsOwnIdsAndNoise) {
  const torch::Tensor chunkIds = torch::tensor({0, 1, 1, 0}, torch::kLong).view({2, 2});
  const torch::Tensor noised = torch::tensor({0, 0, 0, 1}).to(torch::kBool).view({2, 2});
  const torch::Tensor mask = dualStreamMask(chunkIds, noised);
  EXPECT_TRUE(torch::equal(mask[0][0].eq(0), allowed({{1, 0, /**/ 0, 0},  // ids (0, 1)
                                                      {0, 1, /**/ 1, 0},  // nothing masked
                                                      {0, 0, /**/ 1, 0},
                                                      {0, 0, /**/ 1, 1}})));
  // ids (1, 0) with position 1 masked: the masked clean token is seen only by itself, so the
  // earlier chunk holds nothing readable and every query sees just its own chunk or itself.
  EXPECT_TRUE(torch::equal(mask[1][0].eq(0), torch::eye(4, torch::kBool)));
}

TEST(DcdmMasks, MdlmIdsLetTheNoisyStreamSeeAllNoisyTokensAndNoCleanOne) {
  torch::manual_seed(0);
  const int64_t length = 6;
  const torch::Tensor noised = torch::rand({1, length}) < 0.5;
  const torch::Tensor visible =
      pattern(dualStreamMask(torch::zeros({1, length}, torch::kLong), noised));
  EXPECT_TRUE(visible.slice(0, 0, length).slice(1, 0, length).all().item<bool>());
  EXPECT_FALSE(visible.slice(0, 0, length).slice(1, length).any().item<bool>());
}

TEST(DcdmMasks, BdlmIdsGiveBlockDiagonalNoisyAndBlockCausalCleanAttention) {
  const int64_t length = 4;
  const torch::Tensor block = positionalChunkIds(length, 2).unsqueeze(0);
  const torch::Tensor visible =
      pattern(dualStreamMask(block, torch::zeros({1, length}, torch::kBool)));
  const torch::Tensor diagonal = allowed({{1, 1, 0, 0}, {1, 1, 0, 0}, {0, 0, 1, 1}, {0, 0, 1, 1}});
  const torch::Tensor earlier = allowed({{0, 0, 0, 0}, {0, 0, 0, 0}, {1, 1, 0, 0}, {1, 1, 0, 0}});
  EXPECT_TRUE(torch::equal(visible.slice(0, 0, length).slice(1, 0, length), diagonal));
  EXPECT_TRUE(torch::equal(visible.slice(0, 0, length).slice(1, length), earlier));
  EXPECT_TRUE(torch::equal(visible.slice(0, length).slice(1, length), diagonal | earlier));
  EXPECT_TRUE(torch::equal(pattern(chunkCausalMask(block)), diagonal | earlier));
}

TEST(DcdmMasks, NoNoisyQueryReachesAMaskedCleanTokenThroughAnyNumberOfLayers) {
  torch::manual_seed(3);
  const int64_t length = 12;
  for (int trial = 0; trial < 20; ++trial) {
    const torch::Tensor chunkIds = torch::randint(0, 4, {1, length}, torch::kLong);
    const torch::Tensor noised = torch::rand({1, length}) < 0.4;
    // Transitive closure of "attends to": what a query depends on after any number of layers.
    torch::Tensor reach = pattern(dualStreamMask(chunkIds, noised)).to(torch::kFloat);
    for (int step = 0; step < 6; ++step) reach = (reach + reach.matmul(reach)).clamp_max(1.0);
    const torch::Tensor fromNoisyToClean = reach.slice(0, 0, length).slice(1, length).gt(0);
    EXPECT_FALSE((fromNoisyToClean & noised).any().item<bool>()) << "trial " << trial;
  }
}

TEST(DcdmMasks, RejectsMismatchedNoiseAndFloatIds) {
  EXPECT_THROW(dualStreamMask(ids({0, 1}), flags({0, 1, 1})), std::invalid_argument);
  EXPECT_THROW(dualStreamMask(ids({0, 1}), torch::zeros({1, 2})), std::invalid_argument);
  EXPECT_THROW(chunkCausalMask(torch::zeros({1, 2})), std::invalid_argument);
}

}  // namespace
}  // namespace strata
