#pragma once
// Masked (absorbing-state) discrete diffusion as MDLM (Sahoo et al. 2024) trains it, with the
// conventions of the public MDLM / BD3-LM code: each token independently becomes [MASK] with
// probability 1 − α_t; log-linear schedule α_t = 1 − (1 − ε)·t with ε = 1e-3 (or cosine);
// antithetic t sampling; one t per sequence (MDLM) or one t per chunk (BD3-LM's `_sample_t`,
// generalised from positional blocks to any chunk ids); the SUBS parameterisation (no probability
// on [MASK]; unmasked tokens are carried over, so only masked positions have a loss);
// continuous-time ELBO weighting −α'_t/(1 − α_t), which is 1/t for the log-linear schedule; no
// shift (the logits at position l predict token l); the loss averaged over all tokens of the batch
// (zeros where unmasked).

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>
#include <c10/core/TensorOptions.h>

#include <optional>
#include <string_view>

namespace strata::model {

enum class MaskSchedule { LogLinear, Cosine };
std::optional<MaskSchedule> parseMaskSchedule(std::string_view name);  ///< "loglinear" | "cosine"

struct MaskedDiffusion {
  MaskSchedule schedule = MaskSchedule::LogLinear;
  double epsilon = 1e-3;          ///< schedule ε: α_1 = ε (some signal survives at t = 1)
  double samplingEpsilon = 1e-3;  ///< t ∈ [samplingEpsilon, 1]: the 1/t weight stays finite
  bool antithetic = true;
  bool elboWeighting = true;  ///< false: plain masked cross-entropy (weight 1)

  /** α_t: probability that a token is still clean at time t. */
  at::Tensor alpha(const at::Tensor& t) const;
  /** The ELBO weight −α'_t / (1 − α_t). */
  at::Tensor weight(const at::Tensor& t) const;
  /** One t per sequence from torch's global RNG: antithetic = (u/B + i/B) mod 1, then mapped to
   *  [samplingEpsilon, 1]. `generator` replaces the global RNG (validation). */
  at::Tensor sampleTimes(int64_t batch, const at::TensorOptions& options,
                         std::optional<at::Generator> generator = std::nullopt) const;
  /** One t per (sequence, chunk), as BD3-LM's `_sample_t` draws one per (sequence, block):
   *  u [B, chunks] from the RNG; antithetic = (u/(B·chunks) + j/(B·chunks)) mod 1 with j the
   *  row-major index of (sequence, chunk), so the strata spread over batch × chunks; mapped to
   *  [samplingEpsilon, 1]; then each token takes its chunk's t. ids [B, T] integer in
   *  [0, chunks) → t [B, T]. With chunks = 1 this is sampleTimes. */
  at::Tensor sampleChunkTimes(const at::Tensor& ids, int64_t chunks,
                              const at::TensorOptions& options,
                              std::optional<at::Generator> generator = std::nullopt) const;
  /** Masks each token of x0 [B, T] with probability 1 − α_t, t [B] (per sequence) or [B, T]
   *  (per token), from the global RNG: returns the masked-position flags [B, T] (bool). */
  at::Tensor sampleNoiseMask(const at::Tensor& x0, const at::Tensor& t,
                             std::optional<at::Generator> generator = std::nullopt) const;
  /** The noise mask as a function of given uniforms: token l is masked iff u_l < 1 − α(t_l).
   *  u [B, T] in [0, 1); t [B] or [B, T]. sampleNoiseMask is this with fresh u; the evaluation
   *  protocol (shared_noise_elbo.h) passes the same u to every variant. */
  at::Tensor noiseMaskFrom(const at::Tensor& u, const at::Tensor& t) const;
};

/** x_t: x0 with [MASK] (= maskId) at the flagged positions. */
at::Tensor applyMask(const at::Tensor& x0, const at::Tensor& noised, int64_t maskId);

/** SUBS: log-probabilities [B, T, V] over the real vocabulary (columns ≥ vocab, i.e. [MASK],
 *  are dropped) — the model never predicts [MASK]. */
at::Tensor subsLogProbabilities(const at::Tensor& logits, int64_t vocab);

struct MaskedDiffusionLoss {
  at::Tensor loss;           ///< scalar: Σ weight·NLL over masked positions / (B·T)
  at::Tensor sequenceLoss;   ///< [B]: each sequence's Σ weight·NLL / T (detached); mean = loss
  at::Tensor maskedNll;      ///< Σ NLL over masked positions (no weight), for accuracy/ppl
  at::Tensor maskedCount;    ///< number of masked positions
  at::Tensor maskedCorrect;  ///< masked positions whose argmax is the clean token
};

/** The MDLM loss of logits [B, T, ≥V] for clean x0 [B, T] at times t [B] or [B, T] (each
 *  token weighted by its own t: its chunk's, under block diffusion) with noise mask. */
MaskedDiffusionLoss maskedDiffusionLoss(const MaskedDiffusion& diffusion, const at::Tensor& logits,
                                        const at::Tensor& x0, const at::Tensor& noised,
                                        const at::Tensor& t, int64_t vocab);

}  // namespace strata::model
