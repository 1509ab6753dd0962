// Bridge validation metrics (see bridge_evaluation.h).

#include "recipes/bridge/bridge_evaluation.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "model/diffusion/embedding_rounding.h"
#include "model/random/seeded_generator.h"

namespace strata::recipes {

std::map<std::string, double> evaluateBridge(model::BridgeDenoiser& denoiser,
                                             const BridgeDiffusion& diffusion,
                                             const BridgeEvaluationData& data) {
  torch::NoGradGuard noGrad;
  // A generator of its own: evaluation must not move the training's random stream. Made for
  // the device the windows arrive on.
  std::optional<at::Generator> generator;
  std::optional<model::EmbeddingRounding> rounding;
  if (data.source.layer() == 0) rounding.emplace(data.source.backbone());
  const int64_t windows = data.windows;
  double loss = 0, mse = 0, cosine = 0, ceBridge = 0, ceTrue = 0, agree = 0, rounded = 0;
  int64_t sequences = 0, tokens = 0, predictions = 0;
  for (int64_t first = 0; first < windows; first += data.batch) {
    const int64_t rows = std::min(data.batch, windows - first);
    const BridgeWindows batch = data.windowsAt(first, rows);
    const torch::Tensor& ids = batch.ids;
    const torch::Tensor& truth = batch.target;
    const int64_t length = ids.size(1);
    const torch::Tensor x0 = data.statistics.target.normalise(batch.modelledTarget());
    const torch::Tensor cond =
        data.statistics.conditionInput(batch.modelledCondition(), diffusion.conditioned);
    if (!generator) generator = model::seededGenerator(data.seed ^ 0xB81D6EULL, x0.device());

    const BridgeLossTerms terms = bridgeLossTerms(denoiser, x0, cond, diffusion, generator);
    loss += terms.loss.item<double>() * static_cast<double>(rows);
    if (rounding) {
      const torch::Tensor recovered =
          rounding->tokens(data.statistics.target.denormalise(terms.estimate));
      rounded +=
          (recovered == ids.slice(1, batch.exactPositions).to(torch::kCPU)).sum().item<double>();
    }
    const torch::Tensor sampled = bridgeSample(denoiser, cond, x0.size(-1), diffusion, generator);
    mse += (sampled - x0).pow(2).mean().item<double>() * static_cast<double>(rows);
    const torch::Tensor modelled = data.statistics.target.denormalise(sampled);
    cosine += torch::nn::functional::cosine_similarity(
                  modelled, batch.modelledTarget(),
                  torch::nn::functional::CosineSimilarityFuncOptions().dim(-1))
                  .sum()
                  .item<double>();
    tokens += modelled.size(0) * modelled.size(1);
    const torch::Tensor estimate =
        torch::cat({truth.slice(1, 0, batch.exactPositions), modelled}, 1);

    const torch::Tensor targets = ids.slice(1, 1).reshape({-1}).to(truth.device());
    const auto crossEntropy = [&](const torch::Tensor& logits) {
      return torch::nn::functional::cross_entropy(
                 logits.slice(1, 0, -1).reshape({-1, logits.size(-1)}), targets,
                 torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum))
          .item<double>();
    };
    const torch::Tensor logitsTrue = data.source.upperLogits(truth);
    const torch::Tensor logitsBridge = data.source.upperLogits(estimate);
    ceTrue += crossEntropy(logitsTrue);
    ceBridge += crossEntropy(logitsBridge);
    agree += (logitsTrue.slice(1, 0, -1).argmax(-1) == logitsBridge.slice(1, 0, -1).argmax(-1))
                 .sum()
                 .item<double>();
    predictions += rows * (length - 1);
    sequences += rows;
  }
  const double n = static_cast<double>(std::max<int64_t>(1, sequences));
  const double p = static_cast<double>(std::max<int64_t>(1, predictions));
  std::map<std::string, double> metrics = {
      {"loss", loss / n},
      {"mse", mse / n},
      {"cosine", cosine / static_cast<double>(std::max<int64_t>(1, tokens))},
      {"ce_bridge", ceBridge / p},
      {"ce_true", ceTrue / p},
      {"ce_gap", (ceBridge - ceTrue) / p},
      {"ppl_bridge", std::exp(ceBridge / p)},
      {"ppl_true", std::exp(ceTrue / p)},
      {"top1_agreement", agree / p}};
  if (rounding)
    metrics["rounding_accuracy"] = rounded / static_cast<double>(std::max<int64_t>(1, tokens));
  return metrics;
}

}  // namespace strata::recipes
