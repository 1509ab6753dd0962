// The bridge's loss and sampler (see bridge_diffusion.h).

#include "recipes/bridge_diffusion.h"

namespace strata {

torch::Tensor bridgeLoss(BridgeDenoiser& denoiser, const torch::Tensor& x0, const torch::Tensor& cond,
                         const BridgeDiffusion& diffusion, std::optional<at::Generator> generator) {
  const CosineSchedule schedule;
  const torch::Tensor t =
      generator ? torch::rand({x0.size(0)}, *generator, x0.options().dtype(torch::kFloat))
                : torch::rand({x0.size(0)}, x0.options().dtype(torch::kFloat));
  const NoisedBatch noised = addNoise(x0, t, schedule, generator);
  const torch::Tensor output = denoiser->forward(noised.xt, t, cond);
  const torch::Tensor target =
      trainingTarget(diffusion.prediction, x0, noised.epsilon, noised.alphaBar).to(output.dtype());
  torch::Tensor loss = torch::mse_loss(output, target);
  if (diffusion.cosineWeight > 0) {
    const torch::Tensor estimate =
        x0FromOutput(noised.xt, output, noised.alphaBar, diffusion.prediction).to(output.dtype());
    const torch::Tensor cosine = torch::nn::functional::cosine_similarity(
        estimate, x0, torch::nn::functional::CosineSimilarityFuncOptions().dim(-1));
    loss = loss + diffusion.cosineWeight * (1 - cosine).mean();
  }
  return loss;
}

torch::Tensor bridgeSample(BridgeDenoiser& denoiser, const torch::Tensor& cond, int64_t dataDim,
                           const BridgeDiffusion& diffusion, std::optional<at::Generator> generator) {
  const std::vector<int64_t> shape = {cond.size(0), cond.size(1), dataDim};
  const auto options = cond.options().dtype(torch::kFloat);
  const torch::Tensor noise =
      generator ? torch::randn(shape, *generator, options) : torch::randn(shape, options);
  const DenoiserFunction model = [&](const torch::Tensor& xt, const torch::Tensor& t) {
    return denoiser->forward(xt, t, cond);
  };
  return ddimSample(model, noise, diffusion.sampleSteps, diffusion.eta, diffusion.prediction,
                    CosineSchedule(), generator);
}

}  // namespace strata
