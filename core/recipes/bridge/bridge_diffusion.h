#pragma once
// The bridge's diffusion objective and sampler on top of model/diffusion/diffusion_schedule.h and
// model/diffusion/brownian_bridge.h: the loss of one batch (MSE on the chosen prediction target,
// plus an optional cosine term on x̂0) and sampling of normalised h_{l*} given the condition, for
// the two processes (docs/bridge.md "The two processes"):
//
// * gaussian: x_t = √ᾱ·x0 + √(1−ᾱ)·ε (cosine ᾱ); sampling starts from N(0, I) at t = 1 and
//   runs DDIM; the condition enters the denoiser only as a side input.
// * bridge: the Brownian bridge x_t = (1 − t)·x0 + t·c + σ·√(t(1 − t))·ε from the target x0 to
//   the (standardised) condition c, which is its own start point x1 = c: sampling starts from
//   the condition and denoises it into ĥ_{l*} (brownian_bridge.h). x0-prediction only.

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include <optional>

#include "model/diffusion/bridge_denoiser.h"
#include "model/diffusion/diffusion_schedule.h"

namespace strata::recipes {

enum class DiffusionProcess { Gaussian, Bridge };

struct BridgeDiffusion {
  DiffusionProcess process = DiffusionProcess::Gaussian;
  model::Prediction prediction = model::Prediction::X0;
  double cosineWeight = 0;   ///< weight of (1 − cos(x̂0, x0)) averaged over tokens
  int64_t sampleSteps = 20;  ///< sampler steps S
  double eta = 0;            ///< 0 = deterministic DDIM / bridge sampler
  double bridgeNoise = 1;    ///< σ of the Brownian bridge (process bridge)
  /// false: the denoiser's condition is zeros (unconditional embedding diffusion, the sweep's
  /// layer-0 baseline); the callers pass zeros, the process must be gaussian.
  bool conditioned = true;
};

/** The loss of one batch and the denoiser's x̂0 of it (for metrics such as rounding). */
struct BridgeLossTerms {
  at::Tensor loss;
  at::Tensor estimate;  ///< x̂0 [B, T, d], normalised
};

/** Diffusion loss of x0 [B, T, d] (normalised targets) given cond [B, T, dc] (the denoiser's
 *  condition; for the bridge process also x1, so dc = d): one t ~ U(0, 1) per sequence.
 *  Draws from `generator` when given (validation), else torch's global RNG. */
BridgeLossTerms bridgeLossTerms(model::BridgeDenoiser& denoiser, const at::Tensor& x0,
                                const at::Tensor& cond, const BridgeDiffusion& diffusion,
                                std::optional<at::Generator> generator = std::nullopt);
at::Tensor bridgeLoss(model::BridgeDenoiser& denoiser, const at::Tensor& x0, const at::Tensor& cond,
                      const BridgeDiffusion& diffusion,
                      std::optional<at::Generator> generator = std::nullopt);

/** x̂0 [B, T, d] (normalised) in diffusion.sampleSteps steps: DDIM from pure noise (gaussian)
 *  or the bridge sampler from x1 = cond (bridge). */
at::Tensor bridgeSample(model::BridgeDenoiser& denoiser, const at::Tensor& cond, int64_t dataDim,
                        const BridgeDiffusion& diffusion,
                        std::optional<at::Generator> generator = std::nullopt);

}  // namespace strata::recipes
