// Next-token sampling with unconditional embedding diffusion (see embedding_diffusion.h).

#include "recipes/bridge/embedding_diffusion.h"

#include <cmath>

#include "model/random/random_draws.h"
#include "model/random/seeded_generator.h"

namespace strata::recipes {

bool isEmbeddingDiffusion(const LoadedBridge& bridge) {
  return !bridge.diffusion.conditioned && bridge.source->layer() == 0;
}

int32_t embeddingDiffusionToken(LoadedBridge& bridge, const model::EmbeddingRounding& rounding,
                                const std::vector<int32_t>& ids, uint64_t seed) {
  torch::NoGradGuard noGrad;
  const torch::Tensor input =
      torch::tensor(std::vector<int64_t>(ids.begin(), ids.end()), torch::kInt64).unsqueeze(0);
  const HiddenStatistics& stats = bridge.statistics.target;
  const torch::Tensor known =
      stats.normalise(bridge.source->condition(input).slice(1, 1));  // [1, n−1, d]
  const int64_t length = known.size(1) + 1;
  at::Generator generator = model::seededGenerator(seed, known.device());
  const auto options = known.options();
  const torch::Tensor knownNoise = model::normalDraw(known.sizes(), options, generator);
  const torch::Tensor noise = model::normalDraw({1, length, known.size(2)}, options, generator);
  const torch::Tensor noCondition = torch::zeros({1, length, known.size(2)}, options);
  const model::CosineSchedule schedule;
  const model::DenoiserFunction model = [&](const torch::Tensor& xt, const torch::Tensor& t) {
    const double alphaBar = schedule.alphaBar(t[0].item<double>());
    torch::Tensor x = xt.clone();
    x.slice(1, 0, length - 1)
        .copy_(std::sqrt(alphaBar) * known + std::sqrt(1 - alphaBar) * knownNoise);
    return bridge.denoiser->forward(x, t, noCondition);
  };
  const BridgeDiffusion& d = bridge.diffusion;
  const torch::Tensor x0 =
      model::ddimSample(model, noise, d.sampleSteps, d.eta, d.prediction, schedule, generator);
  const torch::Tensor next = stats.denormalise(x0.slice(1, length - 1));
  return static_cast<int32_t>(rounding.tokens(next)[0][0].item<int64_t>());
}

}  // namespace strata::recipes
