// The evaluation protocol every masked diffusion variant shares (shared_noise_elbo.h): the t
// grid is the documented midpoints; each window's uniforms come from (evaluation seed, window)
// alone, checked against a generator seeded by a SplitMix64 written here; every variant masks
// exactly the same tokens, recomputed here from u and t; a model that predicts uniformly scores
// the closed form.

#include "model/diffusion/shared_noise_elbo.h"

#include <torch/torch.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "support/shared_noise_reference.h"

namespace strata::model {

namespace {

constexpr int64_t kVocab = 11, kLength = 16;

using testing::referenceWindowUniforms;

DcdmTransformerConfig tinyConfig(const std::string& variant) {
  return testing::tinyDenoiserConfig(variant, kVocab);
}

TEST(SharedNoiseElbo, TheTimeGridIsTheMidpointsOfTheTrainingRange) {
  const double e = 1e-3;
  const std::vector<double> four = elboTimeGrid(4, e);
  const std::vector<double> expected = {e + (1 - e) * 0.125, e + (1 - e) * 0.375,
                                        e + (1 - e) * 0.625, e + (1 - e) * 0.875};
  ASSERT_EQ(four.size(), 4u);
  for (size_t g = 0; g < 4; ++g) EXPECT_DOUBLE_EQ(four[g], expected[g]) << g;
  EXPECT_DOUBLE_EQ(elboTimeGrid(1, e)[0], e + (1 - e) / 2);
  const std::vector<double> eight = elboTimeGrid(8, e);
  for (size_t g = 1; g < eight.size(); ++g)  // equally spaced, (1 − ε)/G apart
    EXPECT_NEAR(eight[g] - eight[g - 1], (1 - e) / 8, 1e-15) << g;
  EXPECT_THROW(elboTimeGrid(0, e), std::invalid_argument);
}

TEST(SharedNoiseElbo, EachWindowsUniformsComeFromTheSeedAndTheWindowAlone) {
  const torch::Tensor batch = evaluationUniforms(5, 0, 6, kLength, torch::kCPU);
  ASSERT_EQ(batch.sizes(), (std::vector<int64_t>{6, kLength}));
  for (int64_t w = 0; w < 6; ++w) {
    EXPECT_TRUE(torch::equal(batch[w], referenceWindowUniforms(5, w, kLength))) << w;
    // However the windows are batched, window w gets the same numbers.
    EXPECT_TRUE(torch::equal(batch[w], evaluationUniforms(5, w, 1, kLength, torch::kCPU)[0])) << w;
  }
  EXPECT_FALSE(torch::equal(batch[0], batch[1]));
  EXPECT_FALSE(torch::equal(batch[0], evaluationUniforms(6, 0, 1, kLength, torch::kCPU)[0]));
}

TEST(SharedNoiseElbo, EveryVariantMasksTheSameTokensAtEveryGridPoint) {
  const MaskedDiffusion diffusion;
  const std::vector<double> grid = elboTimeGrid(5, diffusion.samplingEpsilon);
  torch::manual_seed(3);
  const torch::Tensor x0 = torch::randint(0, kVocab, {3, kLength}, torch::kLong);
  const torch::Tensor u = evaluationUniforms(9, 2, 3, kLength, torch::kCPU);
  torch::NoGradGuard noGrad;
  for (const std::string variant : {"mdlm", "bdlm", "dcdm"}) {
    torch::manual_seed(4);
    DcdmTransformer model(tinyConfig(variant));
    model->eval();
    const SharedNoiseElbo elbo = sharedNoiseElbo(*model, diffusion, x0, u, grid);
    ASSERT_EQ(elbo.noised.size(), grid.size()) << variant;
    for (size_t g = 0; g < grid.size(); ++g) {
      // Recomputed from the documented rule: token l masked iff u_l < 1 − α(t_g) = (1 − ε)·t_g.
      const torch::Tensor expected = u < static_cast<float>((1 - diffusion.epsilon) * grid[g]);
      EXPECT_TRUE(torch::equal(elbo.noised[g], expected)) << variant << " t " << grid[g];
    }
    EXPECT_EQ(elbo.windowElbo.sizes(), (std::vector<int64_t>{3})) << variant;
  }
}

TEST(SharedNoiseElbo, AUniformPredictorScoresTheClosedForm) {
  // Logits 0 put 1/V on every token, so each masked token costs log V and the estimate is
  // log V · mean over (window, t_g, token) of [u < (1 − ε)·t_g] / t_g, whose expectation over u is
  // exactly (1 − ε)·log V at every t: the ELBO of the uniform model.
  const MaskedDiffusion diffusion;
  DcdmTransformer model(tinyConfig("bdlm"));
  {
    torch::NoGradGuard noGrad;
    for (auto& p : model->named_parameters())
      if (p.key() == "head.weight") p.value().zero_();
  }
  model->eval();
  torch::NoGradGuard noGrad;
  const int64_t windows = 64;
  const std::vector<double> grid = elboTimeGrid(8, diffusion.samplingEpsilon);
  torch::manual_seed(5);
  const torch::Tensor x0 = torch::randint(0, kVocab, {windows, kLength}, torch::kLong);
  const torch::Tensor u = evaluationUniforms(0, 0, windows, kLength, torch::kCPU);
  const SharedNoiseElbo elbo = sharedNoiseElbo(*model, diffusion, x0, u, grid);
  const double logV = std::log(static_cast<double>(kVocab));
  const torch::Tensor ud = u.to(torch::kDouble);
  double sum = 0;
  for (const double t : grid)
    sum += ((ud < (1 - diffusion.epsilon) * t).to(torch::kDouble) / t).sum().item<double>();
  const double closedForm = logV * sum / static_cast<double>(grid.size() * windows * kLength);
  EXPECT_NEAR(elbo.windowElbo.mean().item<double>(), closedForm, 1e-5 * closedForm);
  EXPECT_NEAR(elbo.windowElbo.mean().item<double>(), (1 - diffusion.epsilon) * logV, 0.1 * logV);
  EXPECT_NEAR(elbo.maskedNll / elbo.maskedCount, logV, 1e-5);
}

}  // namespace
}  // namespace strata::model
