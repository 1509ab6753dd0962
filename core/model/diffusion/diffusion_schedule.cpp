#include "model/diffusion/diffusion_schedule.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/random/random_draws.h"

namespace strata::model {

namespace {

/** √ᾱ and √(1−ᾱ), shaped to broadcast over `like` [B, ...] and in like's dtype. */
struct Coefficients {
  torch::Tensor signal;
  torch::Tensor noise;
};

Coefficients coefficients(const torch::Tensor& alphaBar, const torch::Tensor& like) {
  torch::Tensor a = alphaBar.to(like.device());
  if (a.dim() == 1 && like.dim() > 1) {
    if (a.size(0) != like.size(0) && a.size(0) != 1)
      throw std::invalid_argument("diffusion: alphaBar has " + std::to_string(a.size(0)) +
                                  " entries for a batch of " + std::to_string(like.size(0)));
    std::vector<int64_t> shape(static_cast<size_t>(like.dim()), 1);
    shape[0] = a.size(0);
    a = a.view(shape);
  }
  // Square roots in ᾱ's own dtype (float64 from the schedule), then cast: 1 − ᾱ near t = 0
  // is where float32 loses everything.
  return {a.sqrt().to(like.scalar_type()), (1.0 - a).clamp_min(0.0).sqrt().to(like.scalar_type())};
}

}  // namespace

std::optional<Prediction> parsePrediction(std::string_view name) {
  if (name == "x0") return Prediction::X0;
  if (name == "eps") return Prediction::Epsilon;
  if (name == "v") return Prediction::Velocity;
  return std::nullopt;
}

std::string_view predictionName(Prediction prediction) {
  switch (prediction) {
    case Prediction::X0:
      return "x0";
    case Prediction::Epsilon:
      return "eps";
    case Prediction::Velocity:
      return "v";
  }
  return "x0";  // unreachable; keeps -Wreturn-type quiet
}

CosineSchedule::CosineSchedule(double offset, double minAlphaBar)
    : m_offset(offset), m_minAlphaBar(minAlphaBar) {
  if (!(offset >= 0) || !(minAlphaBar > 0 && minAlphaBar < 1))
    throw std::invalid_argument("CosineSchedule: offset must be >= 0 and minAlphaBar in (0, 1)");
}

double CosineSchedule::angle(double t) const {
  return (t + m_offset) / (1.0 + m_offset) * (std::numbers::pi / 2.0);
}

double CosineSchedule::alphaBar(double t) const {
  const double c0 = std::cos(angle(0.0)), c = std::cos(angle(std::clamp(t, 0.0, 1.0)));
  return std::clamp((c * c) / (c0 * c0), m_minAlphaBar, 1.0);
}

torch::Tensor CosineSchedule::alphaBar(const torch::Tensor& t) const {
  const double c0 = std::cos(angle(0.0));
  const torch::Tensor u = (t.to(torch::kDouble).clamp(0.0, 1.0) + m_offset) *
                          (std::numbers::pi / 2.0 / (1.0 + m_offset));
  return (u.cos().square() / (c0 * c0)).clamp(m_minAlphaBar, 1.0);
}

NoisedBatch addNoise(const torch::Tensor& x0, const torch::Tensor& t,
                     const CosineSchedule& schedule, std::optional<at::Generator> generator) {
  if (t.dim() != 1 || x0.dim() < 1 || t.size(0) != x0.size(0))
    throw std::invalid_argument("addNoise: t must be [B] for x0 [B, ...]");
  NoisedBatch batch;
  batch.alphaBar = schedule.alphaBar(t.to(x0.device()));
  batch.epsilon = standardNormal(x0, generator);
  const Coefficients c = coefficients(batch.alphaBar, x0);
  batch.xt = c.signal * x0 + c.noise * batch.epsilon;
  return batch;
}

torch::Tensor trainingTarget(Prediction prediction, const torch::Tensor& x0,
                             const torch::Tensor& epsilon, const torch::Tensor& alphaBar) {
  switch (prediction) {
    case Prediction::X0:
      return x0;
    case Prediction::Epsilon:
      return epsilon;
    case Prediction::Velocity: {
      const Coefficients c = coefficients(alphaBar, x0);
      return c.signal * epsilon - c.noise * x0;
    }
  }
  throw std::invalid_argument("trainingTarget: unknown prediction");
}

// With a = √ᾱ, b = √(1−ᾱ), a² + b² = 1: x_t = a·x0 + b·ε and v = a·ε − b·x0 invert to
// x0 = a·x_t − b·v and ε = b·x_t + a·v.
torch::Tensor x0FromOutput(const torch::Tensor& xt, const torch::Tensor& output,
                           const torch::Tensor& alphaBar, Prediction prediction) {
  if (prediction == Prediction::X0) return output;
  const Coefficients c = coefficients(alphaBar, xt);
  if (prediction == Prediction::Epsilon) return (xt - c.noise * output) / c.signal;
  return c.signal * xt - c.noise * output;
}

torch::Tensor epsilonFromOutput(const torch::Tensor& xt, const torch::Tensor& output,
                                const torch::Tensor& alphaBar, Prediction prediction) {
  if (prediction == Prediction::Epsilon) return output;
  const Coefficients c = coefficients(alphaBar, xt);
  if (prediction == Prediction::X0) return (xt - c.signal * output) / c.noise;
  return c.noise * xt + c.signal * output;
}

torch::Tensor standardNormal(const torch::Tensor& like,
                             const std::optional<at::Generator>& generator) {
  return normalLike(like, generator);
}

torch::Tensor ddimSample(const DenoiserFunction& model, const torch::Tensor& noise, int64_t steps,
                         double eta, Prediction prediction, const CosineSchedule& schedule,
                         std::optional<at::Generator> generator) {
  if (steps < 1) throw std::invalid_argument("ddimSample: steps must be >= 1");
  if (!(eta >= 0)) throw std::invalid_argument("ddimSample: eta must be >= 0");
  torch::NoGradGuard noGrad;
  const int64_t batch = noise.size(0);
  const auto timeOptions = torch::TensorOptions().dtype(torch::kFloat).device(noise.device());
  const auto alphaOptions = torch::TensorOptions().dtype(torch::kDouble).device(noise.device());
  torch::Tensor x = noise;
  for (int64_t i = steps; i >= 1; --i) {
    const double t = static_cast<double>(i) / static_cast<double>(steps);
    const double alphaT = schedule.alphaBar(t);
    const double alphaPrev =
        schedule.alphaBar(static_cast<double>(i - 1) / static_cast<double>(steps));
    const torch::Tensor output = model(x, torch::full({batch}, t, timeOptions));
    const torch::Tensor alpha = torch::full({batch}, alphaT, alphaOptions);
    const torch::Tensor x0Hat = x0FromOutput(x, output, alpha, prediction);
    const double sigma = eta * std::sqrt((1.0 - alphaPrev) / (1.0 - alphaT)) *
                         std::sqrt(std::max(0.0, 1.0 - alphaT / alphaPrev));
    const double direction = std::sqrt(std::max(0.0, 1.0 - alphaPrev - sigma * sigma));
    // At t_prev = 0 (ᾱ = 1) the ε̂ term vanishes and x = x̂0; skipping it there also skips ε̂,
    // which divides by √(1−ᾱ_t) for x0-prediction.
    torch::Tensor next = std::sqrt(alphaPrev) * x0Hat;
    if (direction > 0) next = next + direction * epsilonFromOutput(x, output, alpha, prediction);
    x = next;
    if (sigma > 0) x = x + sigma * standardNormal(x, generator);
  }
  return x;
}

}  // namespace strata::model
