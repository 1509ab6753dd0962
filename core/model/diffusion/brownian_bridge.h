#pragma once
// A diffusion bridge between two given points (the DiHAL bridge's `process=bridge`): the
// Brownian bridge of I2SB (Liu et al. 2023, "I²SB: Image-to-Image Schrödinger Bridge", eq. 11
// with a constant diffusion coefficient σ², as in BBDM, Li et al. 2023) from the data x0 at
// t = 0 to the start point x1 at t = 1 (in DiHAL: x0 = normalised h_{l*}, x1 = the standardised
// condition h_0, so generation starts from the condition instead of from N(0, I)).
//
//   marginal    x_t = (1 − t)·x0 + t·x1 + σ·√(t(1 − t))·ε,  ε ~ N(0, I)
//   posterior   q(x_s | x_t, x0), s < t:  N( ((t − s)/t)·x0 + (s/t)·x_t,  σ²·s(t − s)/t )
//
// x_t is exactly x0 at t = 0 and exactly x1 at t = 1 (no noise at either end). The denoiser
// predicts x̂0(x_t, t, x1) and is trained with MSE against x0.
//
// Sampler (DDIM-like for bridges, DBIM, Zheng et al. 2024): from x_1 = x1 over S uniform steps
// t_i = i/S down to 0. With ε̂ = (x_t − (1 − t)·x̂0 − t·x1)/(σ√(t(1 − t))), the noise the
// marginal implies, and ρ = η·σ·√(s(t − s)/t) (η times the posterior's standard deviation):
//
//   x_s = (1 − s)·x̂0 + s·x1 + √(σ²s(1 − s) − ρ²)·ε̂ + ρ·z,   z ~ N(0, I)
//
// η = 1 is I2SB's ancestral posterior sampling; η = 0 is deterministic after the first step.
// The first step (t = 1) has no ε̂ (x_1 carries no noise), so it always draws the full
// √(σ²s(1 − s)) of fresh noise (DBIM's "booting noise"); σ = 0 makes the whole path the
// straight line. The last step (s = 0) returns x̂0. Stateless; any thread may call.

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <optional>

#include "model/diffusion/diffusion_schedule.h"

namespace strata::model {

/** x_t of the Brownian bridge and the ε that made it. */
struct BridgeMarginal {
  at::Tensor xt;
  at::Tensor epsilon;
};

/** x_t for x0, x1 [B, ...] (same shape) and t [B]; ε from `generator` when given, else from
 *  torch's global RNG (so a training checkpoint's RNG state covers it). */
BridgeMarginal brownianBridgeMarginal(const at::Tensor& x0, const at::Tensor& x1,
                                      const at::Tensor& t, double sigma,
                                      std::optional<at::Generator> generator = std::nullopt);

/** x̂0 by the sampler above from x1 at t = 1. `model` returns x̂0 (x0-prediction). Runs under
 *  NoGradGuard. Throws std::invalid_argument for steps < 1, eta outside [0, 1] or sigma < 0. */
at::Tensor brownianBridgeSample(const DenoiserFunction& model, const at::Tensor& x1, int64_t steps,
                                double eta, double sigma,
                                std::optional<at::Generator> generator = std::nullopt);

}  // namespace strata::model
