#pragma once
// The REPR-ALIGN objective (DESIGN.md "repr_align"), with the defaults of the authors' public
// code (Open-dLLM): masked-diffusion cross-entropy under the shift convention (the logits at
// position i predict token i + 1, so a position is trained when its TARGET is masked), averaged
// uniformly over those targets (MDLM's ELBO weighting as the alternative), plus λ·L_align with
// L_align = 1 − mean cos(h_student^l, h_teacher^l) over the chosen states and the aligned
// positions (those whose target i + 1 is masked); L2 as the alternative distance.
//
// Hidden states, L + 2 of them: indices 0..L are the L + 1 a Hugging Face model returns (0 the
// embedding output, l < L block l's output, L the last block's output AFTER the final norm);
// index L + 1 (preNormState) is the last block's output BEFORE the final norm, which HF does not
// return but which is the true h_L of the residual stream (what capture stores as layer L).

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <optional>
#include <string>
#include <vector>

namespace strata::model {

enum class AlignmentDistance { Cosine, L2 };

/** How the masked cross-entropy is weighted. */
enum class CeWeighting {
  /** Plain mean CE over the masked targets (the authors' public code). Not an ELBO: report it
   *  as masked CE, never as a perplexity. */
  Uniform,
  /** MDLM's continuous-time ELBO (Sahoo et al. 2024) for the log-linear schedule α_t = 1 − t
   *  (each token masked with probability t, model/diffusion/masked_diffusion.h with ε = 0): CE/t
   * summed over the masked targets and divided by every target position, masked or not, as
   *  masked_diffusion does; t ~ U(minTime, 1). exp(it) bounds the perplexity. */
  Elbo,
};

struct AlignmentOptions {
  double lambda = 10.0;
  AlignmentDistance distance = AlignmentDistance::Cosine;
  CeWeighting ceWeighting = CeWeighting::Uniform;
  double minTime = 1.0 / 500;  ///< t ~ U(minTime, 1 − minTime) (Uniform) or U(minTime, 1) (Elbo)
};

/** The index of the last block's output before the final norm among the L + 2 states. */
inline int64_t preNormState(int64_t numLayers) { return numLayers + 1; }

/** A state's name in metric names ("align_cos_<name>"): "0".."L" (the HF states, L after the
 *  final norm), "pre_norm" for preNormState. */
std::string alignmentStateName(int64_t state, int64_t numLayers);

/**
 * The states aligned by `spec`, for an L-layer model:
 *   all      the L + 1 Hugging Face states 0..L: embedding output .. final-norm output (the
 *            authors' code, the default);
 *   blocks   the L block outputs h_1..h_L without the embedding output and the final norm:
 *            states 1..L−1 and preNormState;
 *   lower, middle, upper   thirds of the HF states 0..L (rounded so each is in one third);
 *   a comma list "0,3,7" of HF states.
 * Throws ConfigError (field align_layers) naming the bad part.
 */
std::vector<int64_t> alignmentLayers(const std::string& spec, int64_t numLayers);

/** One t per sequence, float64 on `device`, from torch's default generator of that device or
 *  `generator` (validation; made for `device`): U(minTime, 1 − minTime) under Uniform,
 *  U(minTime, 1) under Elbo (the ELBO integrates over (0, 1]; minTime keeps 1/t finite). */
at::Tensor sampleAlignmentTimes(int64_t batch, const AlignmentOptions& options,
                                at::Device device = at::kCPU,
                                std::optional<at::Generator> generator = std::nullopt);

struct AlignmentLoss {
  at::Tensor total;      ///< diffusion + λ·align
  at::Tensor diffusion;  ///< the CE term under the chosen weighting
  at::Tensor align;      ///< 1 − mean cos (or mean squared L2)
  /** Mean cos over the aligned positions of EVERY hidden state (the alignment curves), the
   *  aligned layers and the others alike; empty when no teacher states were given. */
  std::vector<at::Tensor> layerCosine;
  // Scalar tensors on the logits' device (read them with .item() where a number is needed).
  at::Tensor targets;       ///< masked targets counted (int64)
  int64_t positions = 0;    ///< every target position, masked or not: B·(T − 1)
  at::Tensor correct;       ///< of which the argmax prediction is right (int64)
  at::Tensor maskedNllSum;  ///< Σ CE over the masked targets (masked CE = this / targets)
  at::Tensor elboSum;       ///< Σ CE/t over the masked targets (ELBO = this / positions)
};

/**
 * logits [B, T, V] of the student on the masked sequence; x0 [B, T] clean ids; noised [B, T]
 * (true where x_t is [MASK]); t [B]; student/teacher hidden states: the L + 2 tensors
 * [B, T, d] (see the top of this file), of which `layers` are aligned (`teacher` may be empty
 * when `layers` is: λ = 0 with no curves). A batch with no masked target gives zero losses.
 */
AlignmentLoss alignmentLoss(const at::Tensor& logits, const at::Tensor& x0,
                            const at::Tensor& noised, const at::Tensor& t,
                            const std::vector<at::Tensor>& student,
                            const std::vector<at::Tensor>& teacher,
                            const std::vector<int64_t>& layers, const AlignmentOptions& options);

}  // namespace strata::model
