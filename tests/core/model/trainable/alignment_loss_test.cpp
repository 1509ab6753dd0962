// The REPR-ALIGN objective against values computed by hand: shift convention, uniform or ELBO
// weighting, cosine or L2 alignment, which states each layer set aligns.

#include "model/trainable/alignment_loss.h"

#include <torch/torch.h>
#include <gtest/gtest.h>

#include <cmath>

#include "common/error.h"

namespace strata::model {

namespace {

struct TinyCase {
  // B = 1, T = 3, vocabulary 2; token 1 is masked, so position 0 (which predicts it) is trained.
  torch::Tensor logits = torch::tensor({{{0.0, std::log(3.0)}, {5.0, 0.0}, {0.0, 5.0}}});
  torch::Tensor x0 = torch::tensor({{0, 1, 0}});
  torch::Tensor noised = torch::tensor({{false, true, false}});
  torch::Tensor t = torch::tensor({0.5});
  std::vector<torch::Tensor> student = {
      torch::tensor({{{1.0, 0.0}, {3.0, 3.0}, {0.0, 1.0}}}, torch::requires_grad())};
  std::vector<torch::Tensor> teacher = {
      torch::tensor({{{1.0, 1.0}, {-1.0, 2.0}, {5.0, 5.0}}}, torch::requires_grad())};
};

TEST(AlignmentLoss, MatchesTheHandComputedCase) {
  TinyCase c;
  const AlignmentOptions options;  // λ = 10, cosine, uniform
  const AlignmentLoss loss =
      alignmentLoss(c.logits, c.x0, c.noised, c.t, c.student, c.teacher, {0}, options);
  // p(token 1 | position 0) = 3/4; only position 0 is aligned: cos([1,0],[1,1]) = 1/√2.
  EXPECT_EQ(loss.targets.item<int64_t>(), 1);
  EXPECT_EQ(loss.correct.item<int64_t>(), 1);  // log 3 > 0: token 1 is the argmax
  EXPECT_NEAR(loss.diffusion.item<double>(), std::log(4.0 / 3.0), 1e-6);
  EXPECT_NEAR(loss.align.item<double>(), 1 - 1 / std::sqrt(2.0), 1e-6);
  EXPECT_NEAR(loss.total.item<double>(), std::log(4.0 / 3.0) + 10 * (1 - 1 / std::sqrt(2.0)), 1e-5);
  ASSERT_EQ(loss.layerCosine.size(), 1u);
  EXPECT_NEAR(loss.layerCosine[0].item<double>(), 1 / std::sqrt(2.0), 1e-6);
  loss.total.backward();
  EXPECT_GT(c.student[0].grad().abs().sum().item<double>(), 0);  // the student is pulled
  EXPECT_FALSE(c.teacher[0].grad().defined());                   // the teacher is frozen
  // Positions whose target is not masked get no alignment gradient.
  EXPECT_EQ(c.student[0].grad()[0][1].abs().sum().item<double>(), 0);
}

TEST(AlignmentLoss, TheAlternativesChangeWhatTheyShould) {
  TinyCase c;
  AlignmentOptions options;
  options.ceWeighting = CeWeighting::Elbo;
  options.distance = AlignmentDistance::L2;
  options.lambda = 2;
  c.t = torch::tensor({0.25});
  const AlignmentLoss loss =
      alignmentLoss(c.logits, c.x0, c.noised, c.t, c.student, c.teacher, {0}, options);
  // 1/t over the T − 1 = 2 target positions: log(4/3) / 0.25 / 2.
  EXPECT_NEAR(loss.diffusion.item<double>(), 2 * std::log(4.0 / 3.0), 1e-6);
  EXPECT_NEAR(loss.align.item<double>(), 1.0, 1e-6);  // ‖[1,0]−[1,1]‖²
  EXPECT_NEAR(loss.total.item<double>(), 2 * std::log(4.0 / 3.0) + 2.0, 1e-5);
  const torch::Tensor none = torch::zeros({1, 3}, torch::kBool);
  EXPECT_EQ(alignmentLoss(c.logits, c.x0, none, c.t, c.student, c.teacher, {0}, options)
                .total.item<double>(),
            0);
}

TEST(AlignmentLoss, CurvesCoverEveryLayerNotOnlyTheAlignedOnes) {
  TinyCase c;
  c.student.push_back(torch::tensor({{{0.0, 2.0}, {1.0, 1.0}, {1.0, 0.0}}}));
  c.teacher.push_back(torch::tensor({{{0.0, -3.0}, {1.0, 0.0}, {1.0, 0.0}}}));
  const AlignmentLoss loss =
      alignmentLoss(c.logits, c.x0, c.noised, c.t, c.student, c.teacher, {0}, {});
  EXPECT_NEAR(loss.align.item<double>(), 1 - 1 / std::sqrt(2.0), 1e-6);  // layer 0 alone
  ASSERT_EQ(loss.layerCosine.size(), 2u);
  EXPECT_NEAR(loss.layerCosine[1].item<double>(), -1.0, 1e-6);  // cos([0,2],[0,−3]) at position 0
  // Without a teacher (λ = 0): no alignment, no curves, the same diffusion loss.
  const AlignmentLoss plain = alignmentLoss(c.logits, c.x0, c.noised, c.t, c.student, {}, {}, {});
  EXPECT_TRUE(plain.layerCosine.empty());
  EXPECT_EQ(plain.align.item<double>(), 0);
  EXPECT_NEAR(plain.total.item<double>(), std::log(4.0 / 3.0), 1e-6);
}

TEST(AlignmentLoss, LayerSetsSplitTheHiddenStatesIntoThirds) {
  EXPECT_EQ(alignmentLayers("all", 3), (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(alignmentLayers("lower", 5), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(alignmentLayers("middle", 5), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(alignmentLayers("upper", 5), (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(alignmentLayers("lower", 4), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(alignmentLayers("upper", 4), (std::vector<int64_t>{4}));
  EXPECT_EQ(alignmentLayers("0,2", 4), (std::vector<int64_t>{0, 2}));
  EXPECT_THROW(alignmentLayers("0,9", 4), ConfigError);
  EXPECT_THROW(alignmentLayers("top", 4), ConfigError);
  torch::manual_seed(0);
  const torch::Tensor t = sampleAlignmentTimes(1000, {});
  EXPECT_GE(t.min().item<double>(), 1.0 / 500);
  EXPECT_LE(t.max().item<double>(), 1 - 1.0 / 500);
  // The ELBO integrates over (0, 1]: its times reach above 1 − min_time.
  AlignmentOptions elbo;
  elbo.ceWeighting = CeWeighting::Elbo;
  elbo.minTime = 0.4;
  const torch::Tensor te = sampleAlignmentTimes(1000, elbo);
  EXPECT_GE(te.min().item<double>(), 0.4);
  EXPECT_GT(te.max().item<double>(), 0.9);
  EXPECT_LE(te.max().item<double>(), 1.0);
}

TEST(AlignmentLoss, ElboEqualsAnIndependentSumOfCrossEntropyOverT) {
  // A fixed batch: B = 2, T = 6, V = 5, with masks and times chosen by hand.
  torch::manual_seed(3);
  const int64_t B = 2, T = 6, V = 5;
  const torch::Tensor logits = torch::randn({B, T, V});
  const torch::Tensor x0 = torch::randint(0, V, {B, T});
  const torch::Tensor noised = torch::tensor(
      {{true, true, false, true, false, true}, {false, false, true, true, true, false}});
  const torch::Tensor t = torch::tensor({0.3, 0.8});
  // Σ over masked targets (position i predicts token i + 1) of CE / t, by plain loops.
  double elboSum = 0, ceSum = 0;
  int64_t masked = 0;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i + 1 < T; ++i) {
      if (!noised[b][i + 1].item<bool>()) continue;
      double normaliser = 0;
      for (int64_t v = 0; v < V; ++v) normaliser += std::exp(logits[b][i][v].item<double>());
      const double ce =
          std::log(normaliser) - logits[b][i][x0[b][i + 1].item<int64_t>()].item<double>();
      elboSum += ce / t[b].item<double>();
      ceSum += ce;
      ++masked;
    }
  AlignmentOptions options;
  options.ceWeighting = CeWeighting::Elbo;
  const AlignmentLoss elbo = alignmentLoss(logits, x0, noised, t, {}, {}, {}, options);
  // Divided as masked_diffusion divides: by every target position, B·(T − 1).
  EXPECT_NEAR(elbo.diffusion.item<double>(), elboSum / (B * (T - 1)), 1e-5);
  EXPECT_NEAR(elbo.elboSum.item<double>(), elboSum, 1e-4);
  EXPECT_EQ(elbo.positions, B * (T - 1));
  EXPECT_EQ(elbo.targets.item<int64_t>(), masked);
  const AlignmentLoss uniform = alignmentLoss(logits, x0, noised, t, {}, {}, {}, {});
  EXPECT_NEAR(uniform.diffusion.item<double>(), ceSum / static_cast<double>(masked), 1e-5);
  EXPECT_NEAR(uniform.maskedNllSum.item<double>(), ceSum, 1e-4);
}

TEST(AlignmentLoss, EachLayerSetAlignsItsStatesAndNoOthers) {
  // L = 2: states 0 (embedding output), 1 (block 1), 2 (final-norm output), 3 (block 2 before
  // the final norm). The student is [1, 0] everywhere; the teacher's state k is at angle θ_k,
  // so state k contributes exactly cos θ_k and the loss names which states entered it.
  const int64_t L = 2;
  EXPECT_EQ(alignmentLayers("all", L), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(alignmentLayers("blocks", L), (std::vector<int64_t>{1, preNormState(L)}));
  EXPECT_EQ(alignmentLayers("blocks", 4), (std::vector<int64_t>{1, 2, 3, 5}));
  EXPECT_EQ(alignmentStateName(preNormState(L), L), "pre_norm");
  EXPECT_EQ(alignmentStateName(2, L), "2");
  TinyCase c;
  const std::vector<double> angles = {0.1, 0.7, 1.3, 2.2};
  std::vector<torch::Tensor> student, teacher;
  for (const double angle : angles) {
    student.push_back(torch::tensor({{{1.0, 0.0}, {1.0, 0.0}, {1.0, 0.0}}}));
    teacher.push_back(
        torch::tensor({{{std::cos(angle), std::sin(angle)}, {1.0, 0.0}, {1.0, 0.0}}}));
  }
  const auto alignOf = [&](const std::string& spec) {
    return alignmentLoss(c.logits, c.x0, c.noised, c.t, student, teacher, alignmentLayers(spec, L),
                         {})
        .align.item<double>();
  };
  const auto expected = [&](std::vector<int> states) {
    double sum = 0;
    for (const int k : states) sum += 1 - std::cos(angles[static_cast<size_t>(k)]);
    return sum / static_cast<double>(states.size());
  };
  EXPECT_NEAR(alignOf("all"), expected({0, 1, 2}), 1e-6);
  EXPECT_NEAR(alignOf("blocks"), expected({1, 3}), 1e-6);
  EXPECT_NEAR(alignOf("lower"), expected({0}), 1e-6);
  EXPECT_NEAR(alignOf("upper"), expected({2}), 1e-6);
  EXPECT_NEAR(alignOf("0,2"), expected({0, 2}), 1e-6);
  // The curves cover all four states, the pre-norm one included.
  const AlignmentLoss loss =
      alignmentLoss(c.logits, c.x0, c.noised, c.t, student, teacher, {1}, {});
  ASSERT_EQ(loss.layerCosine.size(), 4u);
  EXPECT_NEAR(loss.layerCosine[3].item<double>(), std::cos(angles[3]), 1e-6);
}

}  // namespace
}  // namespace strata::model
