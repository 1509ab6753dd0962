// The REPR-ALIGN objective against values computed by hand: shift convention, uniform or 1/t
// weighting, cosine or L2 alignment, layer sets.

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

#include "model/alignment_loss.h"

namespace strata {
namespace {

struct TinyCase {
  // B = 1, T = 3, vocabulary 2; token 1 is masked, so position 0 (which predicts it) is trained.
  torch::Tensor logits = torch::tensor({{{0.0, std::log(3.0)}, {5.0, 0.0}, {0.0, 5.0}}});
  torch::Tensor x0 = torch::tensor({{0, 1, 0}});
  torch::Tensor noised = torch::tensor({{false, true, false}});
  torch::Tensor t = torch::tensor({0.5});
  std::vector<torch::Tensor> student = {torch::tensor({{{1.0, 0.0}, {3.0, 3.0}, {0.0, 1.0}}}, torch::requires_grad())};
  std::vector<torch::Tensor> teacher = {torch::tensor({{{1.0, 1.0}, {-1.0, 2.0}, {5.0, 5.0}}}, torch::requires_grad())};
};

TEST(AlignmentLoss, MatchesTheHandComputedCase) {
  TinyCase c;
  const AlignmentOptions options;  // λ = 10, cosine, uniform
  const AlignmentLoss loss = alignmentLoss(c.logits, c.x0, c.noised, c.t, c.student, c.teacher, {0}, options);
  // p(token 1 | position 0) = 3/4; only position 0 is aligned: cos([1,0],[1,1]) = 1/√2.
  EXPECT_EQ(loss.targets, 1);
  EXPECT_EQ(loss.correct, 1);  // log 3 > 0: token 1 is the argmax
  EXPECT_NEAR(loss.diffusion.item<double>(), std::log(4.0 / 3.0), 1e-6);
  EXPECT_NEAR(loss.align.item<double>(), 1 - 1 / std::sqrt(2.0), 1e-6);
  EXPECT_NEAR(loss.total.item<double>(), std::log(4.0 / 3.0) + 10 * (1 - 1 / std::sqrt(2.0)), 1e-5);
  ASSERT_EQ(loss.layerCosine.size(), 1u);
  EXPECT_NEAR(loss.layerCosine[0], 1 / std::sqrt(2.0), 1e-6);
  loss.total.backward();
  EXPECT_GT(c.student[0].grad().abs().sum().item<double>(), 0);  // the student is pulled
  EXPECT_FALSE(c.teacher[0].grad().defined());                   // the teacher is frozen
  // Positions whose target is not masked get no alignment gradient.
  EXPECT_EQ(c.student[0].grad()[0][1].abs().sum().item<double>(), 0);
}

TEST(AlignmentLoss, TheAlternativesChangeWhatTheyShould) {
  TinyCase c;
  AlignmentOptions options;
  options.inverseTimeWeighting = true;
  options.distance = AlignmentDistance::L2;
  options.lambda = 2;
  const AlignmentLoss loss = alignmentLoss(c.logits, c.x0, c.noised, c.t, c.student, c.teacher, {0}, options);
  EXPECT_NEAR(loss.diffusion.item<double>(), std::log(4.0 / 3.0) / 0.5, 1e-6);  // 1/t
  EXPECT_NEAR(loss.align.item<double>(), 1.0, 1e-6);                            // ‖[1,0]−[1,1]‖²
  EXPECT_NEAR(loss.total.item<double>(), 2 * std::log(4.0 / 3.0) + 2.0, 1e-5);
  const torch::Tensor none = torch::zeros({1, 3}, torch::kBool);
  EXPECT_EQ(alignmentLoss(c.logits, c.x0, none, c.t, c.student, c.teacher, {0}, options).total.item<double>(), 0);
}

TEST(AlignmentLoss, CurvesCoverEveryLayerNotOnlyTheAlignedOnes) {
  TinyCase c;
  c.student.push_back(torch::tensor({{{0.0, 2.0}, {1.0, 1.0}, {1.0, 0.0}}}));
  c.teacher.push_back(torch::tensor({{{0.0, -3.0}, {1.0, 0.0}, {1.0, 0.0}}}));
  const AlignmentLoss loss = alignmentLoss(c.logits, c.x0, c.noised, c.t, c.student, c.teacher, {0}, {});
  EXPECT_NEAR(loss.align.item<double>(), 1 - 1 / std::sqrt(2.0), 1e-6);  // layer 0 alone
  ASSERT_EQ(loss.layerCosine.size(), 2u);
  EXPECT_NEAR(loss.layerCosine[1], -1.0, 1e-6);  // cos([0,2],[0,−3]) at position 0
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
  EXPECT_THROW(alignmentLayers("0,9", 4), std::invalid_argument);
  EXPECT_THROW(alignmentLayers("top", 4), std::invalid_argument);
  torch::manual_seed(0);
  const torch::Tensor t = sampleAlignmentTimes(1000, {});
  EXPECT_GE(t.min().item<double>(), 1.0 / 500);
  EXPECT_LE(t.max().item<double>(), 1 - 1.0 / 500);
}

}  // namespace
}  // namespace strata
