// The REPR-ALIGN objective (see alignment_loss.h).

#include "model/trainable/alignment_loss.h"

#include <torch/torch.h>

#include <map>
#include <sstream>
#include <stdexcept>

#include "common/error.h"
#include "model/diffusion/masked_diffusion.h"
#include "model/random/random_draws.h"

namespace strata::model {

std::string alignmentStateName(int64_t state, int64_t numLayers) {
  return state == preNormState(numLayers) ? "pre_norm" : std::to_string(state);
}

std::vector<int64_t> alignmentLayers(const std::string& spec, int64_t numLayers) {
  const int64_t count = numLayers + 1;  // hidden states 0..L
  const auto range = [&](int64_t first, int64_t last) {
    std::vector<int64_t> layers;
    for (int64_t l = first; l < last; ++l) layers.push_back(l);
    return layers;
  };
  const int64_t third = count / 3, extra = count % 3;  // lower and middle take the remainder first
  const int64_t lowerEnd = third + (extra > 0 ? 1 : 0);
  const int64_t middleEnd = lowerEnd + third + (extra > 1 ? 1 : 0);
  if (spec == "all") return range(0, count);
  if (spec == "blocks") {  // h_1..h_L: block outputs only, h_L taken before the final norm
    std::vector<int64_t> blocks = range(1, numLayers);
    blocks.push_back(preNormState(numLayers));
    return blocks;
  }
  if (spec == "lower") return range(0, lowerEnd);
  if (spec == "middle") return range(lowerEnd, middleEnd);
  if (spec == "upper") return range(middleEnd, count);
  std::vector<int64_t> layers;
  std::stringstream in(spec);
  for (std::string part; std::getline(in, part, ',');) {
    size_t used = 0;
    int64_t layer = -1;
    try {
      layer = std::stoll(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != part.size() || layer < 0 || layer >= count)
      throw ConfigError({}, "align_layers",
                        "\"" + part + "\" is not a layer in 0.." + std::to_string(numLayers) +
                            " (or all, blocks, lower, middle, upper)");
    layers.push_back(layer);
  }
  if (layers.empty()) throw ConfigError({}, "align_layers", "no layer given");
  return layers;
}

torch::Tensor sampleAlignmentTimes(int64_t batch, const AlignmentOptions& options,
                                   at::Device device, std::optional<at::Generator> generator) {
  const torch::Tensor u =
      uniformDraw({batch}, torch::TensorOptions(torch::kDouble).device(device), generator);
  const double top = options.ceWeighting == CeWeighting::Elbo ? 1.0 : 1 - options.minTime;
  return options.minTime + (top - options.minTime) * u;
}

AlignmentLoss alignmentLoss(const torch::Tensor& logits, const torch::Tensor& x0,
                            const torch::Tensor& noised, const torch::Tensor& t,
                            const std::vector<torch::Tensor>& student,
                            const std::vector<torch::Tensor>& teacher,
                            const std::vector<int64_t>& layers, const AlignmentOptions& options) {
  // Shift: position i (0..T−2) predicts token i + 1 and is trained when token i + 1 is masked.
  const torch::Tensor targets = x0.slice(1, 1);
  const torch::Tensor trained = noised.slice(1, 1);  // [B, T−1]
  const torch::Tensor logProbabilities =
      torch::log_softmax(logits.slice(1, 0, -1).to(torch::kFloat), -1);
  const torch::Tensor nll = -logProbabilities.gather(-1, targets.unsqueeze(-1)).squeeze(-1);
  const torch::Tensor maskedNll = (nll * trained.to(torch::kFloat)).sum();
  // MDLM's weight −α'_t/(1 − α_t) of the log-linear schedule with ε = 0 (masking probability t):
  // 1/t, from the one place that defines it.
  MaskedDiffusion schedule;
  schedule.epsilon = 0;
  const torch::Tensor weight = schedule.weight(t.to(torch::kFloat)).unsqueeze(1);
  const torch::Tensor elbo = (nll * trained.to(torch::kFloat) * weight).sum();
  // Counts and sums stay tensors: the training step reads none of them (no host wait on a
  // GPU), the evaluation reads them once per batch.
  AlignmentLoss out;
  out.targets = trained.sum();
  out.positions = trained.numel();
  out.correct = ((logProbabilities.argmax(-1) == targets) & trained).sum();
  out.maskedNllSum = maskedNll.detach();
  out.elboSum = elbo.detach();
  const torch::Tensor denominator = out.targets.clamp_min(1).to(torch::kFloat);
  out.diffusion = options.ceWeighting == CeWeighting::Elbo
                      ? elbo / static_cast<double>(std::max<int64_t>(1, out.positions))
                      : maskedNll / denominator;

  torch::Tensor align = torch::zeros({}, logits.options().dtype(torch::kFloat));
  const torch::Tensor aligned = trained.to(torch::kFloat);
  const auto meanCosine = [&](const torch::Tensor& s, const torch::Tensor& h) {
    const torch::Tensor cosine = torch::nn::functional::cosine_similarity(
        s, h, torch::nn::functional::CosineSimilarityFuncOptions().dim(-1).eps(1e-8));
    return (cosine * aligned).sum() / denominator;
  };
  const auto hiddenOf = [](const std::vector<torch::Tensor>& states, size_t l) {
    return states.at(l).slice(1, 0, -1).to(torch::kFloat);
  };
  std::map<size_t, torch::Tensor> alignedCosines;  // computed once, for the loss and the curves
  for (const int64_t l : layers) {
    const auto state = static_cast<size_t>(l);
    const torch::Tensor s = hiddenOf(student, state);
    const torch::Tensor h = hiddenOf(teacher, state).detach();
    if (options.distance == AlignmentDistance::Cosine) {
      const torch::Tensor cosine = meanCosine(s, h);
      alignedCosines[state] = cosine.detach();
      align = align + (1 - cosine);
    } else {
      align = align + ((s - h).pow(2).sum(-1) * aligned).sum() / denominator;
    }
  }
  if (!teacher.empty()) {  // the curves: every hidden state, aligned or not
    torch::NoGradGuard noGrad;
    for (size_t l = 0; l < student.size() && l < teacher.size(); ++l) {
      const auto found = alignedCosines.find(l);
      out.layerCosine.push_back(found != alignedCosines.end()
                                    ? found->second
                                    : meanCosine(hiddenOf(student, l), hiddenOf(teacher, l)));
    }
  }
  out.align = layers.empty() ? align : align / static_cast<double>(layers.size());
  // Nothing masked: no signal, and no 1 − 0 from the empty mean.
  const torch::Tensor anyTarget = out.targets > 0;
  out.diffusion = torch::where(anyTarget, out.diffusion, torch::zeros_like(out.diffusion));
  out.align = torch::where(anyTarget, out.align, torch::zeros_like(out.align));
  out.total = out.diffusion + options.lambda * out.align;
  return out;
}

}  // namespace strata::model
