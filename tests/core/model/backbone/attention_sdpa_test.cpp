// scaled_dot_product_attention (LibTorch's fused kernels) against the attention written out by
// hand, for every mask Strata attends with: causal (is_causal, no mask tensor), padded
// (additive), the block-diffusion dual stream (additive, 2T × 2T) with the dcdm order bias, and
// grouped key/value heads.

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <vector>

#include "model/backbone/attention.h"
#include "model/diffusion/dcdm_masks.h"

namespace strata::model {

namespace {

constexpr double kTolerance = 1e-5;

struct Heads {
  at::Tensor q, k, v;
};

/** Random q [B, H, T, hd] and k, v [B, KV, T, hd], float32. */
Heads randomHeads(int64_t batch, int64_t heads, int64_t kvHeads, int64_t length, int64_t headDim) {
  at::manual_seed(7);
  return {at::randn({batch, heads, length, headDim}), at::randn({batch, kvHeads, length, headDim}),
          at::randn({batch, kvHeads, length, headDim})};
}

double maxDifference(const at::Tensor& a, const at::Tensor& b) {
  return (a - b).abs().max().item<double>();
}

TEST(AttentionSdpa, CausalWithoutAMaskEqualsTheCausalMaskByHand) {
  const Heads h = randomHeads(2, 4, 2, 9, 8);
  AttentionOptions causal;
  const at::Tensor mask = attentionMask(causal, 2, 9, at::kCPU, at::kFloat);
  const at::Tensor fused = scaledDotProductAttention(h.q, h.k, h.v, {}, /*causal=*/true);
  EXPECT_LT(maxDifference(fused, referenceAttention(h.q, h.k, h.v, mask)), kTolerance);
  EXPECT_LT(maxDifference(fused, referenceAttention(h.q, h.k, h.v, {}, /*causal=*/true)),
            kTolerance);
  // Not trivially equal: without the causal rule the result differs.
  EXPECT_GT(maxDifference(fused, referenceAttention(h.q, h.k, h.v, {})), 1e-2);
}

TEST(AttentionSdpa, PaddedMaskEqualsByHand) {
  const Heads h = randomHeads(2, 4, 4, 7, 8);
  AttentionOptions padded;
  // Left padding in the first sequence, right padding in the second.
  const std::vector<int64_t> real = {0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0};
  padded.paddingMask = at::tensor(real, at::kLong).view({2, 7});
  for (const bool causal : {true, false}) {
    padded.causal = causal;
    const at::Tensor mask = attentionMask(padded, 2, 7, at::kCPU, at::kFloat);
    EXPECT_LT(maxDifference(scaledDotProductAttention(h.q, h.k, h.v, mask),
                            referenceAttention(h.q, h.k, h.v, mask)),
              kTolerance)
        << "causal " << causal;
  }
}

TEST(AttentionSdpa, BlockDiffusionMaskWithOrderBiasEqualsByHand) {
  // The dual stream [x_t ; x_0] of 2 × 6 tokens in chunks 0 0 1 1 2 2 (and a routed layout).
  const std::vector<int64_t> chunks = {0, 0, 1, 1, 2, 2, 0, 1, 0, 2, 1, 2};
  const at::Tensor chunkIds = at::tensor(chunks, at::kLong).view({2, 6});
  const at::Tensor mask = blockDiffusionMask(chunkIds);  // [B, 1, 12, 12]
  const Heads h = randomHeads(2, 3, 3, 12, 8);
  EXPECT_LT(maxDifference(scaledDotProductAttention(h.q, h.k, h.v, mask),
                          referenceAttention(h.q, h.k, h.v, mask)),
            kTolerance);
  const at::Tensor withBias = mask + 0.5 * at::randn({2, 1, 12, 12});
  EXPECT_LT(maxDifference(scaledDotProductAttention(h.q, h.k, h.v, withBias),
                          referenceAttention(h.q, h.k, h.v, withBias)),
            kTolerance);
}

TEST(AttentionSdpa, CachedRowsAttendToMoreKeysThanQueries) {
  // A KV-cached step: 3 query rows against 8 keys, with an additive bias only.
  Heads h = randomHeads(1, 2, 2, 8, 4);
  h.q = h.q.slice(2, 5, 8);
  const at::Tensor bias = at::randn({1, 1, 3, 8});
  EXPECT_LT(maxDifference(scaledDotProductAttention(h.q, h.k, h.v, bias),
                          referenceAttention(h.q, h.k, h.v, bias)),
            kTolerance);
}

TEST(AttentionSdpa, AMaskThatNeedsAGradientGetsOne) {
  const Heads h = randomHeads(1, 2, 2, 5, 4);
  const at::Tensor bias = at::zeros({1, 1, 5, 5}).requires_grad_(true);
  scaledDotProductAttention(h.q, h.k, h.v, bias).sum().backward();
  ASSERT_TRUE(bias.grad().defined());
}

}  // namespace
}  // namespace strata::model
