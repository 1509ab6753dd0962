// The bridge's denoiser as a specification: its shape, its causality in x_t and in the
// condition for both conditioning modes, its use of t, gradients to every parameter, and a
// tiny training run that learns x0 as a function of the condition.

#include "model/diffusion/bridge_denoiser.h"

#include <torch/torch.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/diffusion/diffusion_schedule.h"
#include "support/module_parameters.h"

namespace strata::model {

namespace {

const std::vector<std::string> kModes = {"concat", "cross"};

BridgeDenoiserConfig tinyConfig(const std::string& conditioning) {
  BridgeDenoiserConfig config;
  config.dataDim = 6;
  config.condDim = 5;
  config.width = 32;
  config.depth = 2;
  config.heads = 4;
  config.mlpRatio = 2;
  config.conditioning = conditioning;
  config.maxPositions = 16;
  return config;
}

// The output layer starts at zero, which hides everything behind it; tests of what the output
// depends on give it weights first.
void randomiseOutputLayer(BridgeDenoiser& model) {
  torch::NoGradGuard noGrad;
  for (auto& item : model->named_parameters())
    if (item.key().starts_with("output.")) item.value().normal_(0.0, 0.5);
}

TEST(BridgeDenoiser, OutputHasTheShapeOfXtAndStartsAtZero) {
  for (const std::string& mode : kModes) {
    torch::manual_seed(0);
    BridgeDenoiser model(tinyConfig(mode));
    const torch::Tensor out =
        model->forward(torch::randn({3, 7, 6}), torch::rand({3}), torch::randn({3, 7, 5}));
    EXPECT_EQ(out.sizes(), (std::vector<int64_t>{3, 7, 6})) << mode;
    EXPECT_EQ(out.abs().max().item<float>(), 0.0f) << mode;  // zero-initialised output layer
  }
}

TEST(BridgeDenoiser, PositionIDependsOnlyOnXtAndConditionAtPositionsUpToI) {
  const int64_t length = 8;
  for (const std::string& mode : kModes) {
    torch::manual_seed(1);
    BridgeDenoiser model(tinyConfig(mode));
    randomiseOutputLayer(model);
    const torch::Tensor xt = torch::randn({2, length, 6}), cond = torch::randn({2, length, 5});
    const torch::Tensor t = torch::tensor({0.3f, 0.8f});
    const torch::Tensor base = model->forward(xt, t, cond);
    for (const int64_t k : {int64_t{0}, int64_t{3}, length - 1}) {
      const torch::Tensor xtChanged = xt.clone(), condChanged = cond.clone();
      xtChanged.select(1, k).add_(1.0);
      condChanged.select(1, k).add_(1.0);
      for (const auto& [what, out] : {std::pair{"x_t", model->forward(xtChanged, t, cond)},
                                      std::pair{"cond", model->forward(xt, t, condChanged)}}) {
        EXPECT_TRUE(torch::equal(out.slice(1, 0, k), base.slice(1, 0, k)))
            << mode << ": " << what << " at " << k << " reached an earlier position";
        for (int64_t i = k; i < length; ++i)
          EXPECT_GT((out.select(1, i) - base.select(1, i)).abs().max().item<float>(), 0.0f)
              << mode << ": " << what << " at " << k << " did not reach position " << i;
      }
    }
  }
}

TEST(BridgeDenoiser, OutputDependsOnTime) {
  for (const std::string& mode : kModes) {
    torch::manual_seed(2);
    BridgeDenoiser model(tinyConfig(mode));
    randomiseOutputLayer(model);
    const torch::Tensor xt = torch::randn({2, 5, 6}), cond = torch::randn({2, 5, 5});
    const torch::Tensor early = model->forward(xt, torch::full({2}, 0.1f), cond);
    const torch::Tensor late = model->forward(xt, torch::full({2}, 0.9f), cond);
    EXPECT_GT((early - late).abs().min().item<float>(), 0.0f) << mode;
    EXPECT_GT((early - late).abs().mean().item<float>(), 1e-2f) << mode;
  }
}

TEST(BridgeDenoiser, GradientsReachEveryParameter) {
  for (const std::string& mode : kModes) {
    torch::manual_seed(3);
    BridgeDenoiser model(tinyConfig(mode));
    randomiseOutputLayer(model);
    const torch::Tensor out =
        model->forward(torch::randn({2, 6, 6}), torch::rand({2}), torch::randn({2, 6, 5}));
    torch::mse_loss(out, torch::randn_like(out)).backward();
    int64_t checked = 0;
    for (const auto& item : model->named_parameters()) {
      ASSERT_TRUE(item.value().grad().defined()) << mode << ": " << item.key();
      EXPECT_GT(item.value().grad().abs().sum().item<float>(), 0.0f) << mode << ": " << item.key();
      ++checked;
    }
    EXPECT_EQ(checked, static_cast<int64_t>(model->parameters().size()));
  }
}

TEST(BridgeDenoiser, CountsItsParametersAndCrossAttentionCostsMore) {
  BridgeDenoiser concat(tinyConfig("concat")), cross(tinyConfig("cross"));
  int64_t sum = 0;
  for (const auto& p : concat->parameters()) sum += p.numel();
  EXPECT_EQ(concat->parameterCount(), sum);
  EXPECT_GT(cross->parameterCount(), concat->parameterCount());
}

TEST(BridgeDenoiser, RejectsBadConfigsAndShapes) {
  BridgeDenoiserConfig config = tinyConfig("concat");
  config.conditioning = "film";
  EXPECT_THROW(BridgeDenoiser{config}, std::invalid_argument);
  config = tinyConfig("concat");
  config.heads = 5;
  EXPECT_THROW(BridgeDenoiser{config}, std::invalid_argument);

  BridgeDenoiser model(tinyConfig("cross"));
  const torch::Tensor t = torch::rand({2});
  EXPECT_THROW(model->forward(torch::randn({2, 4, 7}), t, torch::randn({2, 4, 5})),
               std::invalid_argument);  // wrong dataDim
  EXPECT_THROW(model->forward(torch::randn({2, 4, 6}), t, torch::randn({2, 3, 5})),
               std::invalid_argument);  // condition of another length
  EXPECT_THROW(model->forward(torch::randn({2, 17, 6}), t, torch::randn({2, 17, 5})),
               std::invalid_argument);  // past maxPositions
}

// Tensors this small gain nothing from threads, and on a busy machine OpenMP's spinning made
// 200 steps take 20 s with two threads against 2 s with one.
class SingleThreaded {
 public:
  SingleThreaded() : m_previous(torch::get_num_threads()) { torch::set_num_threads(1); }
  ~SingleThreaded() { torch::set_num_threads(m_previous); }

 private:
  int m_previous;
};

TEST(BridgeDenoiser, LearnsX0AsAFunctionOfTheCondition) {
  // x0 = tanh(c·W) per token, trained with x0-prediction on the diffusion loss: the loss starts
  // at E[x0²] (the output layer is zero) and must fall well below it.
  const SingleThreaded singleThreaded;
  for (const std::string& mode : kModes) {
    torch::manual_seed(4);
    const BridgeDenoiserConfig config = tinyConfig(mode);
    BridgeDenoiser model(config);
    torch::optim::Adam optimiser(model->parameters(), torch::optim::AdamOptions(3e-3));
    const torch::Tensor weights = torch::randn({config.condDim, config.dataDim});
    const CosineSchedule schedule;
    std::vector<double> losses;
    for (int step = 0; step < 200; ++step) {
      const torch::Tensor cond = torch::randn({16, 8, config.condDim});
      const torch::Tensor x0 = torch::tanh(torch::matmul(cond, weights));
      const torch::Tensor t = torch::rand({16});
      const NoisedBatch noised = addNoise(x0, t, schedule);
      const torch::Tensor loss = torch::mse_loss(model->forward(noised.xt, t, cond), x0);
      optimiser.zero_grad();
      loss.backward();
      optimiser.step();
      losses.push_back(loss.item<double>());
    }
    double last = 0;
    for (size_t i = losses.size() - 20; i < losses.size(); ++i) last += losses[i] / 20;
    EXPECT_GT(losses.front(), 0.3) << mode;
    EXPECT_LT(last, 0.2 * losses.front()) << mode << ": " << losses.front() << " → " << last;
  }
}

TEST(BridgeDenoiser, ItsConfigCountsItsParametersWithoutBuildingIt) {
  for (const char* conditioning : {"concat", "cross"}) {
    BridgeDenoiserConfig config;
    config.dataDim = 24;
    config.condDim = 20;
    config.width = 32;
    config.depth = 3;
    config.heads = 4;
    config.mlpRatio = 3;
    config.conditioning = conditioning;
    config.maxPositions = 50;
    EXPECT_EQ(config.parameterCount(), testing::builtParameters(*BridgeDenoiser(config)))
        << conditioning;
  }
}

}  // namespace
}  // namespace strata::model
