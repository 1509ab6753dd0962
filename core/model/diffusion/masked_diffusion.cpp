// Masked discrete diffusion (see masked_diffusion.h).

#include "model/diffusion/masked_diffusion.h"

#include <torch/torch.h>

#include <numbers>
#include <stdexcept>

#include "model/random/random_draws.h"

namespace strata::model {

std::optional<MaskSchedule> parseMaskSchedule(std::string_view name) {
  if (name == "loglinear") return MaskSchedule::LogLinear;
  if (name == "cosine") return MaskSchedule::Cosine;
  return std::nullopt;
}

torch::Tensor MaskedDiffusion::alpha(const torch::Tensor& t) const {
  if (schedule == MaskSchedule::LogLinear) return 1 - (1 - epsilon) * t;
  return epsilon + (1 - epsilon) * torch::cos(std::numbers::pi / 2 * t);
}

torch::Tensor MaskedDiffusion::weight(const torch::Tensor& t) const {
  if (!elboWeighting) return torch::ones_like(t);
  if (schedule == MaskSchedule::LogLinear) return 1 / t;  // (1−ε) / ((1−ε)·t)
  const torch::Tensor derivative =
      (1 - epsilon) * (std::numbers::pi / 2) * torch::sin(std::numbers::pi / 2 * t);
  return derivative / (1 - alpha(t));
}

torch::Tensor MaskedDiffusion::sampleTimes(int64_t batch, const torch::TensorOptions& options,
                                           std::optional<at::Generator> generator) const {
  torch::Tensor u = uniformDraw({batch}, options, generator);
  if (antithetic) {
    const torch::Tensor offset = torch::arange(batch, options) / static_cast<double>(batch);
    u = torch::remainder(u / static_cast<double>(batch) + offset, 1.0);
  }
  return (1 - samplingEpsilon) * u + samplingEpsilon;
}

torch::Tensor MaskedDiffusion::sampleChunkTimes(const torch::Tensor& ids, int64_t chunks,
                                                const torch::TensorOptions& options,
                                                std::optional<at::Generator> generator) const {
  if (!ids.defined() || ids.dim() != 2 || chunks < 1)
    throw std::invalid_argument("per-chunk times need ids [B, T] and at least one chunk");
  const int64_t batch = ids.size(0), slots = batch * chunks;
  torch::Tensor u = uniformDraw({batch, chunks}, options, generator);
  if (antithetic) {  // bd3lms: offset_b = arange(B·nb) / (B·nb), viewed [B, nb]
    const torch::Tensor offset =
        (torch::arange(slots, options) / static_cast<double>(slots)).view({batch, chunks});
    u = torch::remainder(u / static_cast<double>(slots) + offset, 1.0);
  }
  const torch::Tensor perChunk = (1 - samplingEpsilon) * u + samplingEpsilon;  // [B, chunks]
  return perChunk.gather(1, ids.to(perChunk.device(), torch::kLong));          // [B, T]
}

torch::Tensor MaskedDiffusion::sampleNoiseMask(const torch::Tensor& x0, const torch::Tensor& t,
                                               std::optional<at::Generator> generator) const {
  return noiseMaskFrom(uniformDraw(x0.sizes(), t.options(), generator), t);
}

torch::Tensor MaskedDiffusion::noiseMaskFrom(const torch::Tensor& u, const torch::Tensor& t) const {
  const torch::Tensor moveChance = t.dim() == 1 ? (1 - alpha(t)).unsqueeze(1) : 1 - alpha(t);
  return u < moveChance;
}

torch::Tensor applyMask(const torch::Tensor& x0, const torch::Tensor& noised, int64_t maskId) {
  return torch::where(noised, torch::full_like(x0, maskId), x0);
}

torch::Tensor subsLogProbabilities(const torch::Tensor& logits, int64_t vocab) {
  return torch::log_softmax(logits.slice(-1, 0, vocab).to(torch::kFloat), -1);
}

MaskedDiffusionLoss maskedDiffusionLoss(const MaskedDiffusion& diffusion,
                                        const torch::Tensor& logits, const torch::Tensor& x0,
                                        const torch::Tensor& noised, const torch::Tensor& t,
                                        int64_t vocab) {
  const torch::Tensor logProbabilities = subsLogProbabilities(logits, vocab);
  const torch::Tensor nll = -logProbabilities.gather(-1, x0.unsqueeze(-1)).squeeze(-1);  // [B, T]
  const torch::Tensor masked = noised.to(nll.dtype());
  const torch::Tensor weight =
      t.dim() == 1 ? diffusion.weight(t).unsqueeze(1) : diffusion.weight(t);
  const torch::Tensor weighted = nll * masked * weight;  // each token weighted by its own t
  MaskedDiffusionLoss out;
  out.loss = weighted.sum() / static_cast<double>(x0.numel());
  out.sequenceLoss = weighted.detach().sum(1) / static_cast<double>(x0.size(1));
  out.maskedNll = (nll * masked).sum().detach();
  out.maskedCount = masked.sum().detach();
  out.maskedCorrect = ((logProbabilities.argmax(-1) == x0) & noised).sum().detach();
  return out;
}

}  // namespace strata::model
