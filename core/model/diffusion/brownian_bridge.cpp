// The Brownian bridge marginal and sampler (see brownian_bridge.h).

#include "model/diffusion/brownian_bridge.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace strata::model {

namespace {

/** t [B] shaped to broadcast over `like` [B, ...], in like's dtype. */
torch::Tensor perSample(const torch::Tensor& t, const torch::Tensor& like) {
  std::vector<int64_t> shape(static_cast<size_t>(like.dim()), 1);
  shape[0] = t.size(0);
  return t.to(like.device(), like.scalar_type()).view(shape);
}

}  // namespace

BridgeMarginal brownianBridgeMarginal(const torch::Tensor& x0, const torch::Tensor& x1,
                                      const torch::Tensor& t, double sigma,
                                      std::optional<at::Generator> generator) {
  if (!x0.sizes().equals(x1.sizes()))
    throw std::invalid_argument("brownianBridgeMarginal: x0 and x1 must have the same shape");
  const torch::Tensor s = perSample(t, x0);
  BridgeMarginal out;
  out.epsilon = standardNormal(x0, generator);
  // At t = 0 and t = 1 every coefficient but one is exactly 0, so the ends are exact.
  out.xt = (1 - s) * x0 + s * x1 + sigma * (s * (1 - s)).clamp_min(0).sqrt() * out.epsilon;
  return out;
}

torch::Tensor brownianBridgeSample(const DenoiserFunction& model, const torch::Tensor& x1,
                                   int64_t steps, double eta, double sigma,
                                   std::optional<at::Generator> generator) {
  if (steps < 1) throw std::invalid_argument("brownianBridgeSample: steps must be >= 1");
  if (!(eta >= 0 && eta <= 1))
    throw std::invalid_argument("brownianBridgeSample: eta must be in [0, 1]");
  if (!(sigma >= 0)) throw std::invalid_argument("brownianBridgeSample: sigma must be >= 0");
  torch::NoGradGuard noGrad;
  const auto timeOptions = torch::TensorOptions().dtype(torch::kFloat).device(x1.device());
  torch::Tensor x = x1;
  for (int64_t i = steps; i >= 1; --i) {
    const double t = static_cast<double>(i) / static_cast<double>(steps);
    const double s = static_cast<double>(i - 1) / static_cast<double>(steps);
    const torch::Tensor x0Hat = model(x, torch::full({x1.size(0)}, t, timeOptions));
    const double marginalStd = sigma * std::sqrt(s * (1 - s));  // of x_s
    const double noiseNow = sigma * std::sqrt(t * (1 - t));     // of x_t; 0 at t = 1
    const double fresh = noiseNow > 0 ? eta * sigma * std::sqrt(s * (t - s) / t) : marginalStd;
    const double kept = std::sqrt(std::max(0.0, marginalStd * marginalStd - fresh * fresh));
    torch::Tensor next = (1 - s) * x0Hat + s * x1;
    if (kept > 0) next = next + kept * (x - (1 - t) * x0Hat - t * x1) / noiseNow;
    if (fresh > 0) next = next + fresh * standardNormal(x, generator);
    x = next;
  }
  return x;
}

}  // namespace strata::model
