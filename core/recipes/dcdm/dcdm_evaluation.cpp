// The dcdm recipe's held-out evaluation (see dcdm_evaluation.h).

#include "recipes/dcdm/dcdm_evaluation.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "model/diffusion/chunk_router.h"
#include "model/diffusion/shared_noise_elbo.h"
#include "recipes/pretrain/pretrain_data.h"

namespace strata::recipes {

torch::Tensor normalisedEntropy(const torch::Tensor& loads) {
  const torch::Tensor p = loads.to(torch::kDouble);
  const torch::Tensor entropy = -(p * torch::log(p.clamp_min(1e-12))).sum();
  return entropy / std::log(static_cast<double>(p.size(0)));
}

int64_t heldOutWindowCount(const std::vector<int32_t>& val, int64_t seqLen, int64_t asked) {
  return std::min<int64_t>(asked, static_cast<int64_t>(val.size()) / seqLen);
}

HeldOutEvaluation heldOutElbo(model::DcdmTransformerImpl& model,
                              const model::MaskedDiffusion& diffusion,
                              const std::vector<int32_t>& val, const HeldOutElboOptions& o,
                              const torch::Device& device) {
  const int64_t windows = heldOutWindowCount(val, o.seqLen, o.windows);
  const std::vector<double> grid = model::elboTimeGrid(o.timePoints, diffusion.samplingEpsilon);
  const int64_t chunks = model.hasRouter() ? model.config().chunks : 0;
  torch::Tensor loads = torch::zeros({std::max<int64_t>(chunks, 1)});
  std::vector<torch::Tensor> perWindow;
  double nll = 0, count = 0, correct = 0;
  for (int64_t first = 0; first < windows; first += o.batch) {
    const int64_t rows = std::min(o.batch, windows - first);
    const torch::Tensor x0 = heldOutWindows(val, first, rows, o.seqLen, o.seqLen).to(device);
    const torch::Tensor u = model::evaluationUniforms(o.seed, first, rows, o.seqLen, device);
    const model::SharedNoiseElbo elbo = model::sharedNoiseElbo(model, diffusion, x0, u, grid);
    perWindow.push_back(elbo.windowElbo.to(torch::kCPU));
    nll += elbo.maskedNll;
    count += elbo.maskedCount;
    correct += elbo.maskedCorrect;
    if (chunks > 0)
      loads +=
          model::chunkLoads(elbo.layout.ids, chunks).to(torch::kCPU) * static_cast<double>(rows);
  }
  const torch::Tensor values =
      perWindow.empty() ? torch::zeros({1}, torch::kDouble) : torch::cat(perWindow);
  const double mean = values.mean().item<double>();
  const double se =
      values.numel() > 1 ? values.std().item<double>() / std::sqrt(values.numel()) : 0.0;
  engine::Metrics metrics = {{"loss", mean},
                             {"loss_se", se},
                             {"ppl_bound", std::exp(mean)},
                             {"masked_nll", nll / std::max(1.0, count)},
                             {"masked_acc", correct / std::max(1.0, count)},
                             {"windows", static_cast<double>(windows)}};
  if (chunks > 0) {
    loads /= loads.sum().clamp_min(1e-12);
    metrics["load_entropy"] = normalisedEntropy(loads).item<double>();
    metrics["max_chunk_share"] = loads.max().item<double>();
    for (int64_t k = 0; k < chunks; ++k)
      metrics["chunk_share_" + std::to_string(k)] = loads[k].item<double>();
  }
  HeldOutEvaluation out{std::move(metrics), {}};
  const torch::Tensor cpu = values.contiguous();
  if (!perWindow.empty())
    out.windowElbo.assign(cpu.data_ptr<double>(), cpu.data_ptr<double>() + cpu.numel());
  return out;
}

}  // namespace strata::recipes
