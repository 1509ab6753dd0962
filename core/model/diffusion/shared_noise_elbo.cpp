// The held-out ELBO under the shared evaluation protocol (see shared_noise_elbo.h).

#include "model/diffusion/shared_noise_elbo.h"

#include <stdexcept>

#include "common/split_mix.h"
#include "model/diffusion/block_diffusion.h"
#include "model/random/random_draws.h"
#include "model/random/seeded_generator.h"

namespace strata::model {

std::vector<double> elboTimeGrid(int64_t points, double samplingEpsilon) {
  if (points < 1) throw std::invalid_argument("the ELBO's t grid needs at least one point");
  std::vector<double> grid;
  for (int64_t g = 0; g < points; ++g)
    grid.push_back(samplingEpsilon + (1 - samplingEpsilon) * (static_cast<double>(g) + 0.5) /
                                         static_cast<double>(points));
  return grid;
}

uint64_t evaluationWindowSeed(uint64_t evaluationSeed, int64_t window) {
  // Mixing the seed and the window separately first keeps (s, w) and (s', w') with
  // s + w = s' + w' apart.
  return splitMix64(splitMix64(evaluationSeed) ^ splitMix64(static_cast<uint64_t>(window)));
}

torch::Tensor evaluationUniforms(uint64_t evaluationSeed, int64_t firstWindow, int64_t rows,
                                 int64_t length, const torch::Device& device) {
  std::vector<torch::Tensor> perWindow;
  const auto options = torch::TensorOptions().dtype(torch::kFloat).device(device);
  for (int64_t r = 0; r < rows; ++r) {
    const at::Generator generator =
        seededGenerator(evaluationWindowSeed(evaluationSeed, firstWindow + r), device);
    perWindow.push_back(uniformDraw({length}, options, generator));
  }
  return torch::stack(perWindow);
}

SharedNoiseElbo sharedNoiseElbo(DcdmTransformerImpl& model, const MaskedDiffusion& diffusion,
                                const torch::Tensor& x0, const torch::Tensor& u,
                                const std::vector<double>& grid) {
  if (grid.empty()) throw std::invalid_argument("the ELBO's t grid is empty");
  if (!u.defined() || u.sizes() != x0.sizes())
    throw std::invalid_argument("the evaluation uniforms must have the windows' shape [B, T]");
  MaskedDiffusion elbo = diffusion;
  elbo.elboWeighting = true;  // a bound whatever the training weight (header)
  SharedNoiseElbo out;
  out.layout = model.chunkLayout(x0);  // from clean tokens: the same for every t
  torch::Tensor windowSum = torch::zeros({x0.size(0)}, x0.options().dtype(torch::kDouble));
  torch::Tensor nll = torch::zeros({}, windowSum.options()), count = torch::zeros_like(nll),
                correct = torch::zeros_like(nll);
  for (const double tg : grid) {
    // Every chunk at t_g, every token masked iff its own u is below 1 − α(t_g).
    const torch::Tensor t = torch::full(x0.sizes(), tg, u.options());
    const BlockDiffusionBatch batch =
        blockDiffusionAt(model, elbo, x0, out.layout, t, elbo.noiseMaskFrom(u, t));
    out.noised.push_back(batch.noised);
    windowSum += batch.loss.sequenceLoss.to(torch::kDouble);
    nll += batch.loss.maskedNll.to(torch::kDouble);
    count += batch.loss.maskedCount.to(torch::kDouble);
    correct += batch.loss.maskedCorrect.to(torch::kDouble);
  }
  out.windowElbo = windowSum / static_cast<double>(grid.size());
  out.maskedNll = nll.item<double>();
  out.maskedCount = count.item<double>();
  out.maskedCorrect = correct.item<double>();
  return out;
}

}  // namespace strata::model
