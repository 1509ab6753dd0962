// Closed-form checks of the building blocks: RoPE (rotate_half convention, llama3 and linear
// frequency scaling, partial rotary) and RMSNorm.

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>

#include "model/backbone/norms.h"
#include "model/backbone/rope.h"

namespace strata::model {

namespace {

at::Tensor positionsOf(std::vector<int64_t> values) {
  return at::tensor(values, at::kLong).unsqueeze(0);  // [1, T]
}

TEST(ModelRope, DefaultFrequenciesAreBasePowers) {
  const at::Tensor inverse = ropeInverseFrequencies(8, 10000.0, std::nullopt);
  const std::vector<float> expected{1.0f, 0.1f, 0.01f, 0.001f};  // 10000^(-2i/8)
  ASSERT_EQ(inverse.numel(), 4);
  for (int i = 0; i < 4; ++i)
    EXPECT_NEAR(inverse[i].item<float>(), expected[i], 1e-7f * expected[i] + 1e-9f);
}

TEST(ModelRope, Llama3ScalingMatchesHandComputedFrequencies) {
  // factor 8, low 1, high 4, original context 64: wavelengths above 64/1 are divided by 8,
  // those below 64/4 = 16 kept, the others interpolated with s = (64/λ − 1)/(4 − 1).
  io::RopeScaling scaling{"llama3", 8.0, 1.0, 4.0, 64};
  const at::Tensor inverse = ropeInverseFrequencies(8, 10000.0, scaling);
  // θ = 1: λ = 2π ≈ 6.28 < 16 → unchanged.
  EXPECT_NEAR(inverse[0].item<float>(), 1.0f, 1e-7f);
  // θ = 0.1: λ = 20π ≈ 62.83 → s = (64/62.83 − 1)/3 ≈ 0.0061972,
  // (1 − s)·0.1/8 + s·0.1 ≈ 0.0130423.
  EXPECT_NEAR(inverse[1].item<float>(), 0.01304226f, 1e-8f);
  // θ = 0.01, 0.001: λ ≈ 628, 6283 > 64 → divided by 8.
  EXPECT_NEAR(inverse[2].item<float>(), 0.00125f, 1e-10f);
  EXPECT_NEAR(inverse[3].item<float>(), 0.000125f, 1e-11f);
}

TEST(ModelRope, LinearScalingDividesEveryFrequency) {
  const at::Tensor plain = ropeInverseFrequencies(16, 500000.0, std::nullopt);
  const at::Tensor linear = ropeInverseFrequencies(16, 500000.0, io::RopeScaling{"linear", 4.0});
  EXPECT_TRUE(at::allclose(linear * 4.0, plain, 1e-6, 0.0));
}

TEST(ModelRope, RejectsUnsupportedScaling) {
  EXPECT_FALSE(ropeScalingSupported("yarn"));
  EXPECT_THROW(ropeInverseFrequencies(8, 10000.0, io::RopeScaling{"yarn", 4.0}),
               std::invalid_argument);
}

TEST(ModelRope, IsTheIdentityAtPositionZero) {
  const at::Tensor x = at::randn({2, 3, 1, 8});
  const RopeTables tables =
      ropeTables(ropeInverseFrequencies(8, 10000.0, std::nullopt), positionsOf({0}).expand({2, 1}));
  EXPECT_TRUE(at::equal(applyRope(x, tables), x));
}

TEST(ModelRope, RotatesHalvesNotInterleavedPairs) {
  // head_dim 4, θ = (1, 0.01): component 0 pairs with component 2 (rotate_half), not with 1.
  const at::Tensor x = at::tensor({1.0f, 0.0f, 0.0f, 0.0f}).view({1, 1, 1, 4});
  const RopeTables tables =
      ropeTables(ropeInverseFrequencies(4, 10000.0, std::nullopt), positionsOf({3}));
  const at::Tensor y = applyRope(x, tables).view({4});
  EXPECT_NEAR(y[0].item<float>(), std::cos(3.0f), 1e-6f);
  EXPECT_NEAR(y[1].item<float>(), 0.0f, 1e-7f);
  EXPECT_NEAR(y[2].item<float>(), std::sin(3.0f), 1e-6f);
  EXPECT_NEAR(y[3].item<float>(), 0.0f, 1e-7f);
}

TEST(ModelRope, ScoresDependOnlyOnTheOffset) {
  // ⟨R_m q, R_n k⟩ = ⟨R_{m−n} q, k⟩: the property RoPE exists for.
  const at::Tensor inverse = ropeInverseFrequencies(8, 10000.0, std::nullopt);
  const at::Tensor q = at::randn({1, 1, 1, 8}), k = at::randn({1, 1, 1, 8});
  const auto rotate = [&](const at::Tensor& x, int64_t p) {
    return applyRope(x, ropeTables(inverse, positionsOf({p})));
  };
  const double near = (rotate(q, 7) * rotate(k, 4)).sum().item<double>();
  const double far = (rotate(q, 23) * rotate(k, 20)).sum().item<double>();
  EXPECT_NEAR(near, far, 1e-4);
  EXPECT_NEAR((rotate(q, 5) * rotate(q, 5)).sum().item<double>(), (q * q).sum().item<double>(),
              1e-4);
}

TEST(ModelRope, PartialRotaryLeavesTheTailUntouched) {
  // GPT-NeoX rotary_pct: tables for 4 of 16 dimensions rotate only those 4.
  const at::Tensor x = at::randn({1, 2, 5, 16});
  const RopeTables tables =
      ropeTables(ropeInverseFrequencies(4, 10000.0, std::nullopt), positionsOf({0, 1, 2, 3, 4}));
  const at::Tensor y = applyRope(x, tables);
  EXPECT_TRUE(at::equal(y.slice(-1, 4), x.slice(-1, 4)));
  EXPECT_FALSE(at::allclose(y.slice(-1, 0, 4), x.slice(-1, 0, 4)));
}

TEST(ModelNorms, RmsNormDividesByTheRootMeanSquare) {
  const at::Tensor x = at::tensor({3.0f, 4.0f}).view({1, 2});
  const at::Tensor y = rmsNorm(x, at::tensor({1.0f, 2.0f}), 0.0);
  const float rms = std::sqrt(12.5f);  // sqrt((9 + 16) / 2)
  EXPECT_NEAR(y[0][0].item<float>(), 3.0f / rms, 1e-6f);
  EXPECT_NEAR(y[0][1].item<float>(), 2.0f * 4.0f / rms, 1e-6f);
}

}  // namespace
}  // namespace strata::model
