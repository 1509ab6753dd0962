#pragma once
// The held-out ELBO of a masked diffusion LM under the evaluation protocol every variant shares
// (mdlm, bdlm-B, dcdm-K: docs/dcdm.md "Evaluation protocol"), so that two variants' numbers
// differ only by their models:
//
// * Windows: the same held-out windows (the caller's; the dcdm recipe takes windows 0..N−1 of
//   the validation tokens).
// * t grid: G fixed midpoints of [ε_s, 1] (ε_s = MaskedDiffusion::samplingEpsilon, the training
//   range of t), t_g = ε_s + (1 − ε_s)·(g + ½)/G: the midpoint rule for ∫ dt of each chunk's
//   ELBO term. Every window is evaluated at every t_g, and at t_g EVERY chunk of every variant
//   takes t_g.
// * Noise: one uniform u_l per token of window w, drawn from a generator seeded by
//   evaluationWindowSeed(evaluation seed, w) alone — not by the variant, the batch size or the
//   training seed. Token l is masked at t iff u_l < 1 − α(t) (MaskedDiffusion::noiseMaskFrom):
//   so at each (w, g) every variant sees exactly the same x_t, and the masks are nested in t.
//
// Why sharing one t over all chunks still gives each variant's own ELBO: block diffusion's bound
// is Σ_c E_{t_c ~ U} [ w(t_c) Σ_{l∈c, masked} −log p(x_l | x_t of chunk c, x_0 of chunks < c) ]
// (BD3-LM, with chunks for blocks) and, under the block-diffusion mask, chunk c's logits read
// only chunk c's noisy tokens and earlier chunks' clean ones, so chunk c's term depends on t_c
// and its own u alone. The expectation of a sum is the sum of expectations whatever the joint
// law of (t_1 … t_K), so drawing them equal changes no term's mean; mdlm is the case of one
// chunk. The chunk layout comes from the clean tokens only (chunk_layout.h), never the noise.
// The weight is always the ELBO's −α'_t/(1 − α_t) (1/t for the log-linear schedule), even for
// a run trained with elbo_weighting = false: the result is a bound, comparable across variants.

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <vector>

#include "model/diffusion/chunk_layout.h"
#include "model/diffusion/dcdm_transformer.h"
#include "model/diffusion/masked_diffusion.h"

namespace strata::model {

/** The G midpoints t_g = ε_s + (1 − ε_s)·(g + ½)/G, g = 0..G−1 (G ≥ 1, else invalid_argument). */
std::vector<double> elboTimeGrid(int64_t points, double samplingEpsilon);

/** The seed of held-out window w's noise: SplitMix64 (Steele, Lea & Flood 2014) of the
 *  evaluation seed mixed with w — a pure function of the two. */
uint64_t evaluationWindowSeed(uint64_t evaluationSeed, int64_t window);

/** u [rows, length] float32 on `device`: row r is U[0, 1)^length from
 *  seededGenerator(evaluationWindowSeed(evaluationSeed, firstWindow + r), device). */
at::Tensor evaluationUniforms(uint64_t evaluationSeed, int64_t firstWindow, int64_t rows,
                              int64_t length, const at::Device& device);

struct SharedNoiseElbo {
  at::Tensor windowElbo;     ///< [B] float64: each window's ELBO per token, mean over the grid
  double maskedNll = 0;      ///< Σ over windows and grid points of the masked positions' NLL
  double maskedCount = 0;    ///< masked positions over windows and grid points
  double maskedCorrect = 0;  ///< of them, those whose argmax is the clean token
  ChunkLayout layout;        ///< the windows' chunk layout (one per window, not per t)
  std::vector<at::Tensor> noised;  ///< per grid point, the mask [B, T] (bool) it used
};

/** The protocol (header) for windows x0 [B, T] with their uniforms u [B, T] and the grid:
 *  the layout of x0 once, then for each t_g the noise mask u < 1 − α(t_g) and the
 *  block-diffusion ELBO (blockDiffusionAt). */
SharedNoiseElbo sharedNoiseElbo(DcdmTransformerImpl& model, const MaskedDiffusion& diffusion,
                                const at::Tensor& x0, const at::Tensor& u,
                                const std::vector<double>& grid);

}  // namespace strata::model
