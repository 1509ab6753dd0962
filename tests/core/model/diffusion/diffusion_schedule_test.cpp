// Continuous-time diffusion as a specification: the cosine schedule's values, the prediction
// targets and their inverses, and DDIM — exact with an oracle denoiser, deterministic at η = 0,
// and sampling the data distribution when the denoiser is the true posterior mean.

#include "model/diffusion/diffusion_schedule.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <utility>
#include <vector>

namespace strata::model {

namespace {

const std::vector<Prediction> kPredictions = {Prediction::X0, Prediction::Epsilon,
                                              Prediction::Velocity};

double maxAbsDifference(const torch::Tensor& a, const torch::Tensor& b) {
  return (a - b).abs().max().item<double>();
}

// The model a perfect denoiser would be for a known x0: it reads ε off x_t and x0 and
// returns the exact target. Counts its calls and keeps the x_t it saw second.
struct Oracle {
  Oracle(torch::Tensor x0, Prediction prediction) : x0(std::move(x0)), prediction(prediction) {}

  torch::Tensor x0;
  Prediction prediction;
  CosineSchedule schedule;
  int calls = 0;
  torch::Tensor secondInput;

  torch::Tensor operator()(const torch::Tensor& xt, const torch::Tensor& t) {
    if (++calls == 2) secondInput = xt.clone();
    const torch::Tensor alphaBar = schedule.alphaBar(t).view({-1, 1, 1});
    const torch::Tensor a = alphaBar.sqrt().to(xt.scalar_type());
    const torch::Tensor b = (1.0 - alphaBar).sqrt().to(xt.scalar_type());
    const torch::Tensor epsilon = (xt - a * x0) / b;
    if (prediction == Prediction::X0) return x0;
    if (prediction == Prediction::Epsilon) return epsilon;
    return a * epsilon - b * x0;
  }
};

TEST(CosineSchedule, AlphaBarIsOneAtZero) {
  const CosineSchedule schedule;
  EXPECT_EQ(schedule.alphaBar(0.0), 1.0);
  EXPECT_NEAR(schedule.alphaBar(torch::zeros({1})).item<double>(), 1.0, 1e-15);
}

TEST(CosineSchedule, DecreasesMonotonicallyToATinyPositiveFloor) {
  const CosineSchedule schedule;
  double previous = schedule.alphaBar(0.0);
  for (int i = 1; i <= 1000; ++i) {
    const double current = schedule.alphaBar(i / 1000.0);
    EXPECT_LT(current, previous) << "t = " << i / 1000.0;  // the clamp starts after t = 0.999
    previous = current;
  }
  EXPECT_EQ(schedule.alphaBar(1.0), schedule.minAlphaBar());
  EXPECT_GT(schedule.alphaBar(1.0), 0.0);
  EXPECT_LE(schedule.alphaBar(1.0), 1e-6);
  EXPECT_GT(schedule.alphaBar(0.999), schedule.minAlphaBar());  // the clamp only bites at the end
}

TEST(CosineSchedule, MatchesNicholDhariwalClosedForm) {
  const CosineSchedule schedule;
  const auto f = [](double t) {
    return std::pow(std::cos((t + 0.008) / 1.008 * std::numbers::pi / 2), 2);
  };
  const std::vector<double> times = {0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99};
  const torch::Tensor asTensor = schedule.alphaBar(torch::tensor(times, torch::kFloat64));
  EXPECT_EQ(asTensor.scalar_type(), torch::kFloat64);
  for (size_t i = 0; i < times.size(); ++i) {
    EXPECT_NEAR(schedule.alphaBar(times[i]), f(times[i]) / f(0), 1e-12) << "t = " << times[i];
    EXPECT_NEAR(asTensor[static_cast<int64_t>(i)].item<double>(), f(times[i]) / f(0), 1e-12);
  }
  EXPECT_NEAR(schedule.alphaBar(0.5), 0.49384, 1e-5);  // cos²(0.79164)/cos²(0.012467) by hand
}

TEST(Prediction, NamesRoundTripAndUnknownNamesAreRejected) {
  for (const Prediction p : kPredictions) EXPECT_EQ(parsePrediction(predictionName(p)), p);
  EXPECT_EQ(parsePrediction("x0"), Prediction::X0);
  EXPECT_EQ(parsePrediction("eps"), Prediction::Epsilon);
  EXPECT_EQ(parsePrediction("v"), Prediction::Velocity);
  EXPECT_FALSE(parsePrediction("epsilon").has_value());
  EXPECT_FALSE(parsePrediction("").has_value());
}

TEST(DiffusionConversions, InvertTheTargetOfEveryPrediction) {
  torch::manual_seed(1);
  const torch::Tensor x0 = torch::randn({6, 5, 7});
  const torch::Tensor epsilon = torch::randn({6, 5, 7});
  // float32 ᾱ away from 0, where x0 from ε amplifies rounding by 1/√ᾱ.
  const torch::Tensor alphaBar = torch::rand({6}) * 0.95 + 0.05;
  const torch::Tensor a = alphaBar.sqrt().view({6, 1, 1}),
                      b = (1 - alphaBar).sqrt().view({6, 1, 1});
  const torch::Tensor xt = a * x0 + b * epsilon;
  for (const Prediction p : kPredictions) {
    const torch::Tensor target = trainingTarget(p, x0, epsilon, alphaBar);
    EXPECT_LT(maxAbsDifference(x0FromOutput(xt, target, alphaBar, p), x0), 1e-5)
        << predictionName(p);
    EXPECT_LT(maxAbsDifference(epsilonFromOutput(xt, target, alphaBar, p), epsilon), 1e-5)
        << predictionName(p);
  }
  EXPECT_LT(maxAbsDifference(trainingTarget(Prediction::Velocity, x0, epsilon, alphaBar),
                             a * epsilon - b * x0),
            1e-6);
}

TEST(DiffusionConversions, InvertAcrossTheWholeScheduleInFloat64) {
  torch::manual_seed(2);
  const CosineSchedule schedule;
  const torch::Tensor t = torch::tensor({1e-6, 0.3, 0.7, 0.999, 1.0}, torch::kFloat64);
  const torch::Tensor x0 = torch::randn({5, 4, 3}, torch::kFloat64);
  const NoisedBatch noised = addNoise(x0, t, schedule);
  for (const Prediction p : kPredictions) {
    const torch::Tensor target = trainingTarget(p, x0, noised.epsilon, noised.alphaBar);
    EXPECT_LT(maxAbsDifference(x0FromOutput(noised.xt, target, noised.alphaBar, p), x0), 1e-9);
    EXPECT_LT(
        maxAbsDifference(epsilonFromOutput(noised.xt, target, noised.alphaBar, p), noised.epsilon),
        1e-9);
  }
}

TEST(AddNoise, MixesSignalAndGlobalRngNoisePerSample) {
  const CosineSchedule schedule;
  const torch::Tensor x0 = torch::randn({3, 4, 2});
  const torch::Tensor t = torch::tensor({0.0f, 0.5f, 1.0f});
  torch::manual_seed(7);
  const NoisedBatch noised = addNoise(x0, t, schedule);
  torch::manual_seed(7);
  EXPECT_TRUE(torch::equal(noised.epsilon, torch::randn_like(x0)));  // the global RNG, nothing else
  EXPECT_EQ(noised.xt.scalar_type(), torch::kFloat);
  EXPECT_TRUE(torch::allclose(noised.xt[0], x0[0]));  // t = 0: no noise
  const double a = std::sqrt(schedule.alphaBar(0.5)), b = std::sqrt(1 - schedule.alphaBar(0.5));
  EXPECT_TRUE(torch::allclose(noised.xt[1], a * x0[1] + b * noised.epsilon[1], 1e-5, 1e-6));
  EXPECT_LT(maxAbsDifference(noised.xt[2], noised.epsilon[2]), 1e-2);  // t = 1: almost pure noise
}

TEST(AddNoise, DrawsFromTheGivenGeneratorWithoutTouchingTheGlobalRng) {
  const CosineSchedule schedule;
  const torch::Tensor x0 = torch::randn({2, 3, 4});
  const torch::Tensor t = torch::tensor({0.2f, 0.8f});
  torch::manual_seed(3);
  const torch::Tensor expectedGlobal = torch::randn({5});
  torch::manual_seed(3);
  const NoisedBatch first = addNoise(x0, t, schedule, at::detail::createCPUGenerator(11));
  EXPECT_TRUE(torch::equal(torch::randn({5}), expectedGlobal));
  const NoisedBatch second = addNoise(x0, t, schedule, at::detail::createCPUGenerator(11));
  EXPECT_TRUE(torch::equal(first.xt, second.xt));
}

TEST(DdimSampler, OracleDenoiserRecoversX0ForEveryPredictionAndStepCount) {
  torch::manual_seed(4);
  const torch::Tensor x0 = torch::randn({3, 5, 4}, torch::kFloat64);
  const torch::Tensor noise = torch::randn({3, 5, 4}, torch::kFloat64);
  for (const Prediction p : kPredictions) {
    for (const int64_t steps : {1, 5, 50}) {
      Oracle oracle(x0, p);
      const torch::Tensor sample =
          ddimSample(std::ref(oracle), noise, steps, 0.0, p, CosineSchedule());
      EXPECT_EQ(oracle.calls, steps);
      EXPECT_LT(maxAbsDifference(sample, x0), 1e-4) << predictionName(p) << ", S = " << steps;
    }
  }
}

TEST(DdimSampler, OracleDenoiserRecoversX0InFloat32) {
  // S ≥ 2: at S = 1, x̂0 from ε at t = 1 is x_t's float32 rounding ×1/√ᾱ_min = ×1000.
  torch::manual_seed(5);
  const torch::Tensor x0 = torch::randn({3, 5, 4}), noise = torch::randn({3, 5, 4});
  for (const Prediction p : kPredictions) {
    for (const int64_t steps : {5, 50}) {
      const torch::Tensor sample =
          ddimSample(Oracle(x0, p), noise, steps, 0.0, p, CosineSchedule());
      EXPECT_EQ(sample.scalar_type(), torch::kFloat);
      EXPECT_LT(maxAbsDifference(sample, x0), 1e-4) << predictionName(p) << ", S = " << steps;
    }
  }
}

// For x0 ~ N(0, I): x_t ~ N(0, I) and Cov(x0, x_t) = √ᾱ·I, so E[x0 | x_t] = √ᾱ·x_t.
torch::Tensor gaussianPosteriorMean(const torch::Tensor& xt, const torch::Tensor& t) {
  return CosineSchedule().alphaBar(t).sqrt().to(xt.scalar_type()).view({-1, 1, 1}) * xt;
}

TEST(DdimSampler, EtaZeroIsDeterministicAndDrawsNothing) {
  torch::manual_seed(6);
  const torch::Tensor noise = torch::randn({4, 6, 3});
  torch::manual_seed(9);
  const torch::Tensor first =
      ddimSample(gaussianPosteriorMean, noise, 10, 0.0, Prediction::X0, CosineSchedule());
  const torch::Tensor afterSampling = torch::randn({4});
  torch::manual_seed(9);
  const torch::Tensor second =
      ddimSample(gaussianPosteriorMean, noise, 10, 0.0, Prediction::X0, CosineSchedule());
  EXPECT_TRUE(torch::equal(first, second));
  torch::manual_seed(9);
  EXPECT_TRUE(torch::equal(afterSampling, torch::randn({4})));
}

TEST(DdimSampler, EtaOneTakesAnotherPathToTheSameX0) {
  torch::manual_seed(8);
  const torch::Tensor x0 = torch::randn({2, 4, 3}), noise = torch::randn({2, 4, 3});
  const CosineSchedule schedule;
  Oracle deterministic(x0, Prediction::Velocity);
  Oracle stochastic(x0, Prediction::Velocity);
  const torch::Tensor a =
      ddimSample(std::ref(deterministic), noise, 8, 0.0, Prediction::Velocity, schedule);
  const torch::Tensor b = ddimSample(std::ref(stochastic), noise, 8, 1.0, Prediction::Velocity,
                                     schedule, at::detail::createCPUGenerator(21));
  EXPECT_GT(maxAbsDifference(deterministic.secondInput, stochastic.secondInput), 1e-2);
  EXPECT_LT(maxAbsDifference(a, x0), 1e-4);
  EXPECT_LT(maxAbsDifference(b, x0), 1e-4);

  // Without an oracle the endpoints differ too, and a fixed generator repeats itself.
  const auto sampleWith = [&](double eta) {
    return ddimSample(gaussianPosteriorMean, noise, 8, eta, Prediction::X0, schedule,
                      at::detail::createCPUGenerator(21));
  };
  EXPECT_GT(maxAbsDifference(sampleWith(0.0), sampleWith(1.0)), 1e-2);
  EXPECT_TRUE(torch::equal(sampleWith(1.0), sampleWith(1.0)));
}

TEST(DdimSampler, ExactGaussianDenoiserSamplesTheGaussianPrior) {
  // With x̂0 = √ᾱ·x_t, each η = 0 step multiplies x by √(ᾱ_prev·ᾱ_t) + √((1−ᾱ_prev)(1−ᾱ_t)),
  // a cos(Δφ) with cos φ = √ᾱ, so the sample variance is ∏cos²(Δφ) = 1 − O(1/S).
  const int64_t steps = 100;
  const CosineSchedule schedule;
  double expectedScale = 1.0;
  for (int64_t i = steps; i >= 1; --i) {
    const double at = schedule.alphaBar(static_cast<double>(i) / steps);
    const double ap = schedule.alphaBar(static_cast<double>(i - 1) / steps);
    expectedScale *= std::sqrt(ap * at) + std::sqrt((1 - ap) * (1 - at));
  }
  torch::manual_seed(10);
  const torch::Tensor sample = ddimSample(gaussianPosteriorMean, torch::randn({2048, 8, 4}), steps,
                                          0.0, Prediction::X0, schedule);
  const double mean = sample.mean().item<double>(), variance = sample.var().item<double>();
  EXPECT_NEAR(mean, 0.0, 0.02);
  EXPECT_NEAR(variance, 1.0, 0.05);
  EXPECT_NEAR(variance, expectedScale * expectedScale, 0.02);
}

TEST(DdimSampler, RejectsNonsenseArguments) {
  const torch::Tensor noise = torch::randn({1, 2, 2});
  EXPECT_THROW(ddimSample(gaussianPosteriorMean, noise, 0, 0.0, Prediction::X0, CosineSchedule()),
               std::invalid_argument);
  EXPECT_THROW(ddimSample(gaussianPosteriorMean, noise, 4, -0.5, Prediction::X0, CosineSchedule()),
               std::invalid_argument);
}

}  // namespace
}  // namespace strata::model
