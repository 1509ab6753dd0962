// Masked diffusion (MDLM conventions): schedule, ELBO weight, antithetic times, masking rate,
// SUBS and the loss against values computed by hand.

#include "model/diffusion/masked_diffusion.h"

#include <torch/torch.h>
#include <gtest/gtest.h>

#include <cmath>

namespace strata::model {

namespace {

TEST(MaskedDiffusion, LogLinearScheduleAndItsOneOverTWeight) {
  const MaskedDiffusion d;
  const torch::Tensor t = torch::tensor({0.001, 0.25, 0.5, 1.0}, torch::kDouble);
  const torch::Tensor alpha = d.alpha(t);
  EXPECT_NEAR(alpha[3].item<double>(), 1e-3, 1e-12);  // α_1 = ε
  EXPECT_NEAR(alpha[1].item<double>(), 1 - 0.999 * 0.25, 1e-12);
  // −α'/(1 − α) = (1 − ε)/((1 − ε)·t) = 1/t
  EXPECT_TRUE(torch::allclose(d.weight(t), 1 / t));
  // Cosine: the weight is −α'/(1−α) by finite differences.
  MaskedDiffusion cosine;
  cosine.schedule = MaskSchedule::Cosine;
  const double h = 1e-6, at = 0.4;
  const double derivative = (cosine.alpha(torch::tensor({at + h}, torch::kDouble)).item<double>() -
                             cosine.alpha(torch::tensor({at - h}, torch::kDouble)).item<double>()) /
                            (2 * h);
  const double alpha04 = cosine.alpha(torch::tensor({at}, torch::kDouble)).item<double>();
  EXPECT_NEAR(cosine.weight(torch::tensor({at}, torch::kDouble)).item<double>(),
              -derivative / (1 - alpha04), 1e-6);
}

TEST(MaskedDiffusion, AntitheticTimesCoverEveryStratum) {
  torch::manual_seed(1);
  const MaskedDiffusion d;
  const torch::Tensor t = d.sampleTimes(8, torch::TensorOptions(torch::kDouble));
  const torch::Tensor u = std::get<0>(((t - 1e-3) / (1 - 1e-3)).sort());
  for (int64_t i = 0; i < 8; ++i) {  // one u in each [i/8, (i+1)/8)
    EXPECT_GE(u[i].item<double>(), i / 8.0 - 1e-12);
    EXPECT_LT(u[i].item<double>(), (i + 1) / 8.0 + 1e-12);
  }
  EXPECT_GE(t.min().item<double>(), 1e-3);
  EXPECT_LE(t.max().item<double>(), 1.0);
}

TEST(MaskedDiffusion, TokensAreMaskedAtRateOneMinusAlpha) {
  torch::manual_seed(2);
  const MaskedDiffusion d;
  const torch::Tensor x0 = torch::zeros({2, 20000}, torch::kInt64);
  const torch::Tensor t = torch::tensor({0.2, 0.7});
  const torch::Tensor noised = d.sampleNoiseMask(x0, t);
  EXPECT_NEAR(noised[0].to(torch::kDouble).mean().item<double>(), 0.999 * 0.2, 0.01);
  EXPECT_NEAR(noised[1].to(torch::kDouble).mean().item<double>(), 0.999 * 0.7, 0.01);
  const torch::Tensor xt = applyMask(torch::arange(5).unsqueeze(0),
                                     torch::tensor({{false, true, false, true, false}}), 9);
  EXPECT_TRUE(torch::equal(xt, torch::tensor({{0, 9, 2, 9, 4}})));
}

TEST(MaskedDiffusion, LossMatchesAHandComputedCase) {
  // Vocabulary 3 plus [MASK] (id 3). One sequence of 2 tokens, t = 0.5, position 0 masked.
  const torch::Tensor logits = torch::tensor({{{1.0, 2.0, 0.5, 100.0}, {0.0, 0.0, 0.0, 100.0}}});
  const torch::Tensor x0 = torch::tensor({{1, 2}});
  const torch::Tensor noised = torch::tensor({{true, false}});
  const torch::Tensor t = torch::tensor({0.5});
  const MaskedDiffusion d;
  const MaskedDiffusionLoss loss = maskedDiffusionLoss(d, logits, x0, noised, t, 3);
  // SUBS drops the [MASK] logit: p(1) = e² / (e¹ + e² + e^0.5).
  const double nll = -(2.0 - std::log(std::exp(1.0) + std::exp(2.0) + std::exp(0.5)));
  EXPECT_NEAR(loss.loss.item<double>(), nll * (1 / 0.5) / 2,
              1e-6);  // weight 1/t, mean over 2 tokens
  EXPECT_NEAR(loss.maskedNll.item<double>(), nll, 1e-6);
  EXPECT_EQ(loss.maskedCount.item<double>(), 1);
  EXPECT_EQ(loss.maskedCorrect.item<double>(), 1);  // argmax 1 = the clean token
  MaskedDiffusion plain;
  plain.elboWeighting = false;
  EXPECT_NEAR(maskedDiffusionLoss(plain, logits, x0, noised, t, 3).loss.item<double>(), nll / 2,
              1e-6);
}

TEST(MaskedDiffusion, PerTokenTimesWeightAndMaskEachTokenByItsOwnT) {
  // Block diffusion: each token carries its chunk's t. Two masked tokens at t = 0.5 and 0.25.
  const torch::Tensor logits = torch::tensor({{{1.0, 2.0, 0.5}, {0.0, 1.0, 0.0}}});
  const torch::Tensor x0 = torch::tensor({{1, 0}});
  const torch::Tensor noised = torch::tensor({{true, true}});
  const torch::Tensor t = torch::tensor({{0.5, 0.25}});
  const MaskedDiffusion d;
  const double nll0 = -(2.0 - std::log(std::exp(1.0) + std::exp(2.0) + std::exp(0.5)));
  const double nll1 = -(0.0 - std::log(2.0 + std::exp(1.0)));
  EXPECT_NEAR(maskedDiffusionLoss(d, logits, x0, noised, t, 3).loss.item<double>(),
              (nll0 / 0.5 + nll1 / 0.25) / 2, 1e-6);
  torch::manual_seed(4);
  const torch::Tensor rates = torch::tensor({0.1, 0.9}).repeat({20000}).unsqueeze(0);  // [1, 40000]
  const torch::Tensor flags = d.sampleNoiseMask(torch::zeros({1, 40000}, torch::kInt64), rates);
  const torch::Tensor perToken = flags[0].view({20000, 2}).to(torch::kDouble).mean(0);
  EXPECT_NEAR(perToken[0].item<double>(), 0.999 * 0.1, 0.01);
  EXPECT_NEAR(perToken[1].item<double>(), 0.999 * 0.9, 0.01);
}

}  // namespace
}  // namespace strata::model
