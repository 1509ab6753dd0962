// The bridge's loss and sampler (see bridge_diffusion.h).

#include "recipes/bridge/bridge_diffusion.h"

#include <stdexcept>
#include <string>

#include "model/diffusion/brownian_bridge.h"
#include "model/random/random_draws.h"

namespace strata::recipes {

namespace {

void requireSameSize(int64_t dataDim, const torch::Tensor& cond) {
  if (cond.size(-1) != dataDim)
    throw std::invalid_argument(
        "the bridge process starts from the condition: it needs the "
        "condition's size (" +
        std::to_string(cond.size(-1)) + ") to equal the target's (" + std::to_string(dataDim) +
        ")");
}

}  // namespace

BridgeLossTerms bridgeLossTerms(model::BridgeDenoiser& denoiser, const torch::Tensor& x0,
                                const torch::Tensor& cond, const BridgeDiffusion& diffusion,
                                std::optional<at::Generator> generator) {
  const torch::Tensor t =
      model::uniformDraw({x0.size(0)}, x0.options().dtype(torch::kFloat), generator);
  BridgeLossTerms terms;
  torch::Tensor output, target;
  if (diffusion.process == DiffusionProcess::Bridge) {
    requireSameSize(x0.size(-1), cond);
    const model::BridgeMarginal noised =
        model::brownianBridgeMarginal(x0, cond, t, diffusion.bridgeNoise, generator);
    output = denoiser->forward(noised.xt, t, cond);
    target = x0;
    terms.estimate = output;
  } else {
    const model::CosineSchedule schedule;
    const model::NoisedBatch noised = model::addNoise(x0, t, schedule, generator);
    output = denoiser->forward(noised.xt, t, cond);
    target = model::trainingTarget(diffusion.prediction, x0, noised.epsilon, noised.alphaBar);
    terms.estimate = model::x0FromOutput(noised.xt, output, noised.alphaBar, diffusion.prediction)
                         .to(output.dtype());
  }
  terms.loss = torch::mse_loss(output, target.to(output.dtype()));
  if (diffusion.cosineWeight > 0) {
    const torch::Tensor cosine = torch::nn::functional::cosine_similarity(
        terms.estimate, x0, torch::nn::functional::CosineSimilarityFuncOptions().dim(-1));
    terms.loss = terms.loss + diffusion.cosineWeight * (1 - cosine).mean();
  }
  return terms;
}

torch::Tensor bridgeLoss(model::BridgeDenoiser& denoiser, const torch::Tensor& x0,
                         const torch::Tensor& cond, const BridgeDiffusion& diffusion,
                         std::optional<at::Generator> generator) {
  return bridgeLossTerms(denoiser, x0, cond, diffusion, generator).loss;
}

torch::Tensor bridgeSample(model::BridgeDenoiser& denoiser, const torch::Tensor& cond,
                           int64_t dataDim, const BridgeDiffusion& diffusion,
                           std::optional<at::Generator> generator) {
  const model::DenoiserFunction model = [&](const torch::Tensor& xt, const torch::Tensor& t) {
    return denoiser->forward(xt, t, cond);
  };
  if (diffusion.process == DiffusionProcess::Bridge) {
    requireSameSize(dataDim, cond);
    return model::brownianBridgeSample(model, cond.to(torch::kFloat), diffusion.sampleSteps,
                                       diffusion.eta, diffusion.bridgeNoise, generator);
  }
  const std::vector<int64_t> shape = {cond.size(0), cond.size(1), dataDim};
  const auto options = cond.options().dtype(torch::kFloat);
  const torch::Tensor noise = model::normalDraw(shape, options, generator);
  return model::ddimSample(model, noise, diffusion.sampleSteps, diffusion.eta, diffusion.prediction,
                           model::CosineSchedule(), generator);
}

}  // namespace strata::recipes
