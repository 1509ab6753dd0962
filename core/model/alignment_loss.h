#pragma once
// The REPR-ALIGN objective (DESIGN.md "repr_align"), with the defaults of the authors' public
// code (Open-dLLM): masked-diffusion cross-entropy under the shift convention (the logits at
// position i predict token i + 1, so a position is trained when its TARGET is masked), averaged
// uniformly over those targets (1/t weighting as the alternative), plus λ·L_align with
// L_align = 1 − mean cos(h_student^l, h_teacher^l) over the chosen layers and the aligned
// positions (those whose target i + 1 is masked); L2 as the alternative distance. Hidden
// states are the L + 1 a Hugging Face model returns (embedding output, every block, the last
// after the final norm).

#include <torch/torch.h>

#include <optional>
#include <string>
#include <vector>

namespace strata {

enum class AlignmentDistance { Cosine, L2 };

struct AlignmentOptions {
  double lambda = 10.0;
  AlignmentDistance distance = AlignmentDistance::Cosine;
  bool inverseTimeWeighting = false;  ///< false: uniform CE over masked targets (the public code)
  double minTime = 1.0 / 500;         ///< t ~ U(minTime, 1 − minTime), one per sequence
};

/**
 * The layers of "all", "lower", "middle", "upper" (thirds of 0..L, rounded so every layer is in
 * exactly one third) or a comma list "0,3,7" of an L-layer model's L + 1 hidden states. Throws
 * std::invalid_argument naming the bad part.
 */
std::vector<int64_t> alignmentLayers(const std::string& spec, int64_t numLayers);

/** One t per sequence, U(minTime, 1 − minTime), float64, from torch's global RNG or
 *  `generator` (validation). */
torch::Tensor sampleAlignmentTimes(int64_t batch, const AlignmentOptions& options,
                                   std::optional<at::Generator> generator = std::nullopt);

struct AlignmentLoss {
  torch::Tensor total;      ///< diffusion + λ·align
  torch::Tensor diffusion;  ///< CE over masked targets
  torch::Tensor align;      ///< 1 − mean cos (or mean squared L2)
  /** Mean cos over the aligned positions of EVERY hidden state (the alignment curves), the
   *  aligned layers and the others alike; empty when no teacher states were given. */
  std::vector<double> layerCosine;
  int64_t targets = 0;      ///< masked targets counted
  int64_t correct = 0;      ///< of which the argmax prediction is right (masked-token accuracy)
};

/**
 * logits [B, T, V] of the student on the masked sequence; x0 [B, T] clean ids; noised [B, T]
 * (true where x_t is [MASK]); t [B]; student/teacher hidden states: the L + 1 tensors
 * [B, T, d], of which `layers` are aligned (`teacher` may be empty when `layers` is: λ = 0 with
 * no curves). A batch with no masked target gives zero losses.
 */
AlignmentLoss alignmentLoss(const torch::Tensor& logits, const torch::Tensor& x0,
                            const torch::Tensor& noised, const torch::Tensor& t,
                            const std::vector<torch::Tensor>& student,
                            const std::vector<torch::Tensor>& teacher,
                            const std::vector<int64_t>& layers, const AlignmentOptions& options);

}  // namespace strata
