#pragma once
// The bridge's diffusion objective and sampler on top of model/diffusion_schedule.h: the loss
// of one batch (MSE on the chosen prediction target, plus an optional cosine term on x̂0) and
// DDIM sampling of normalised h_{l*} given the condition.

#include <torch/torch.h>

#include <optional>

#include "model/bridge_denoiser.h"
#include "model/diffusion_schedule.h"

namespace strata {

struct BridgeDiffusion {
  Prediction prediction = Prediction::X0;
  double cosineWeight = 0;  ///< weight of (1 − cos(x̂0, x0)) averaged over tokens
  int64_t sampleSteps = 20; ///< DDIM steps S
  double eta = 0;           ///< 0 = deterministic DDIM
};

/** Diffusion loss of x0 [B, T, d] (normalised targets) given cond [B, T, dc]: one t ~ U(0, 1)
 *  per sequence. Draws from `generator` when given (validation), else torch's global RNG. */
torch::Tensor bridgeLoss(BridgeDenoiser& denoiser, const torch::Tensor& x0, const torch::Tensor& cond,
                         const BridgeDiffusion& diffusion,
                         std::optional<at::Generator> generator = std::nullopt);

/** x̂0 [B, T, d] (normalised) from pure noise by DDIM in diffusion.sampleSteps steps. */
torch::Tensor bridgeSample(BridgeDenoiser& denoiser, const torch::Tensor& cond, int64_t dataDim,
                           const BridgeDiffusion& diffusion,
                           std::optional<at::Generator> generator = std::nullopt);

}  // namespace strata
