// The dcdm recipe's held-out ELBO (recipes/dcdm/dcdm_evaluation.h) against a straightforward
// reimplementation written here — window by window, t by t, token by token, with the uniforms
// from an independently seeded generator — for every variant; and two variants with the same
// chunks (mdlm and bdlm with one block) score the same numbers.

#include <torch/torch.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "recipes/dcdm/dcdm_evaluation.h"
#include "support/shared_noise_reference.h"

namespace strata::recipes {
namespace {

constexpr int64_t kVocab = 9, kLength = 12, kWindows = 7, kPoints = 4;
constexpr uint64_t kSeed = 13;

std::vector<int32_t> heldOutTokens() {
  torch::manual_seed(21);
  const torch::Tensor ids = torch::randint(0, kVocab, {kWindows * kLength + 5}, torch::kInt);
  return std::vector<int32_t>(ids.data_ptr<int32_t>(), ids.data_ptr<int32_t>() + ids.numel());
}

HeldOutElboOptions options(int64_t batch) {
  HeldOutElboOptions o;
  o.seqLen = kLength;
  o.batch = batch;
  o.windows = 100;  // more than the tokens hold: kWindows are used
  o.timePoints = kPoints;
  o.seed = kSeed;
  return o;
}

struct ReferenceElbo {
  double elbo = 0, elboSe = 0, maskedNll = 0, maskedAcc = 0;
  std::vector<double> perWindow;
};

/** The protocol written out plainly: window w's tokens, its uniforms, t_g = ε + (1 − ε)(g + ½)/G
 *  for every chunk, token l masked iff u_l < (1 − ε)·t_g, its cost −log p(x_l)/t_g, summed
 *  over the window and divided by its length; windows and t averaged. */
ReferenceElbo referenceElbo(model::DcdmTransformerImpl& model, const std::vector<int32_t>& tokens) {
  const double eps = 1e-3;
  std::vector<double> perWindow;
  double nll = 0, count = 0, correct = 0;
  for (int64_t w = 0; w < kWindows; ++w) {
    const torch::Tensor x0 = torch::tensor(std::vector<int64_t>(tokens.begin() + w * kLength,
                                                                tokens.begin() + (w + 1) * kLength))
                                 .unsqueeze(0);
    const torch::Tensor u = testing::referenceWindowUniforms(kSeed, w, kLength);
    const model::ChunkLayout layout = model.chunkLayout(x0);
    double window = 0;
    for (int64_t g = 0; g < kPoints; ++g) {
      const double t = eps + (1 - eps) * (static_cast<double>(g) + 0.5) / kPoints;
      torch::Tensor xt = x0.clone();
      std::vector<bool> masked(kLength);
      for (int64_t l = 0; l < kLength; ++l) {
        masked[l] = u[l].item<double>() < (1 - eps) * t;
        if (masked[l]) xt[0][l] = kVocab;  // [MASK]
      }
      const torch::Tensor logp =
          torch::log_softmax(model.forwardTraining(xt, x0, layout)[0].to(torch::kDouble), -1);
      for (int64_t l = 0; l < kLength; ++l) {
        if (!masked[l]) continue;
        const int64_t token = x0[0][l].item<int64_t>();
        const double cost = -logp[l][token].item<double>();
        window += cost / t / kLength;
        nll += cost;
        count += 1;
        correct += logp[l].argmax().item<int64_t>() == token ? 1 : 0;
      }
    }
    perWindow.push_back(window / kPoints);
  }
  ReferenceElbo r;
  r.perWindow = perWindow;
  for (const double v : perWindow) r.elbo += v / kWindows;
  double squares = 0;
  for (const double v : perWindow) squares += (v - r.elbo) * (v - r.elbo);
  r.elboSe = std::sqrt(squares / (kWindows - 1)) / std::sqrt(static_cast<double>(kWindows));
  r.maskedNll = nll / count;
  r.maskedAcc = correct / count;
  return r;
}

TEST(HeldOutElbo, MatchesAStraightforwardReimplementationInEveryVariant) {
  const std::vector<int32_t> tokens = heldOutTokens();
  model::MaskedDiffusion trainedWithoutWeights;
  trainedWithoutWeights.elboWeighting = false;  // the evaluation is still the ELBO (1/t)
  torch::NoGradGuard noGrad;
  for (const std::string variant : {"mdlm", "bdlm", "dcdm"}) {
    torch::manual_seed(6);
    model::DcdmTransformer model(testing::tinyDenoiserConfig(variant, kVocab));
    model->eval();
    const ReferenceElbo expected = referenceElbo(*model, tokens);
    const HeldOutEvaluation evaluation =
        heldOutElbo(*model, model::MaskedDiffusion(), tokens, options(3), torch::kCPU);
    const engine::Metrics& m = evaluation.metrics;
    EXPECT_NEAR(m.at("loss"), expected.elbo, 1e-5 * expected.elbo) << variant;
    EXPECT_NEAR(m.at("loss_se"), expected.elboSe, 1e-4 * expected.elboSe) << variant;
    EXPECT_NEAR(m.at("ppl_bound"), std::exp(expected.elbo), 1e-5 * std::exp(expected.elbo));
    EXPECT_NEAR(m.at("masked_nll"), expected.maskedNll, 1e-5) << variant;
    EXPECT_NEAR(m.at("masked_acc"), expected.maskedAcc, 1e-9) << variant;
    EXPECT_EQ(m.at("windows"), kWindows) << variant;
    ASSERT_EQ(evaluation.windowElbo.size(), static_cast<size_t>(kWindows)) << variant;
    for (int64_t w = 0; w < kWindows; ++w)
      EXPECT_NEAR(evaluation.windowElbo[w], expected.perWindow[w], 1e-5 * expected.perWindow[w])
          << variant << " window " << w;
    EXPECT_EQ(m.count("load_entropy"), variant == "dcdm" ? 1u : 0u) << variant;
    // Neither the batch size nor the training weight changes a number.
    const engine::Metrics oneBatch =
        heldOutElbo(*model, trainedWithoutWeights, tokens, options(kWindows), torch::kCPU).metrics;
    EXPECT_NEAR(oneBatch.at("loss"), m.at("loss"), 1e-6 * m.at("loss")) << variant;
  }
}

TEST(HeldOutElbo, TwoVariantsWithTheSameChunksScoreTheSame) {
  // bdlm with one block of the whole window has mdlm's chunking: one chunk, whose noisy tokens
  // see each other and no clean token. With the same weights, the same windows and the same
  // noise, the two evaluations must agree.
  const std::vector<int32_t> tokens = heldOutTokens();
  torch::manual_seed(7);
  model::DcdmTransformer mdlm(testing::tinyDenoiserConfig("mdlm", kVocab));
  model::DcdmTransformer bdlm(testing::tinyDenoiserConfig("bdlm", kVocab, kLength));
  torch::NoGradGuard noGrad;
  auto target = bdlm->named_parameters();
  for (const auto& item : mdlm->named_parameters()) target[item.key()].copy_(item.value());
  mdlm->eval();
  bdlm->eval();
  const engine::Metrics a =
      heldOutElbo(*mdlm, model::MaskedDiffusion(), tokens, options(4), torch::kCPU).metrics;
  const engine::Metrics b =
      heldOutElbo(*bdlm, model::MaskedDiffusion(), tokens, options(4), torch::kCPU).metrics;
  EXPECT_NEAR(a.at("loss"), b.at("loss"), 1e-6 * a.at("loss"));
  EXPECT_NEAR(a.at("masked_nll"), b.at("masked_nll"), 1e-6);
  EXPECT_EQ(a.at("masked_acc"), b.at("masked_acc"));
}

}  // namespace
}  // namespace strata::recipes
