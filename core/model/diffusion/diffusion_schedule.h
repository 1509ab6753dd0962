#pragma once
// Continuous-time Gaussian diffusion (DESIGN.md "bridge"): the cosine noise schedule, forward
// noising, the three prediction targets and their inverses, and the DDIM sampler.
//
// Notation: t ∈ [0, 1], ᾱ = ᾱ(t), x_t = √ᾱ·x0 + √(1−ᾱ)·ε with ε ~ N(0, I). Data tensors are
// [B, ...] (the bridge uses [B, T, d]); a per-sample ᾱ is [B] and broadcasts over the rest.
// Stateless functions; nothing here keeps state between calls, so any thread may use them.

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>

namespace strata::model {

/** What the denoiser outputs: x̂0, ε̂, or v̂ = √ᾱ·ε − √(1−ᾱ)·x0 (Salimans & Ho 2022). */
enum class Prediction { X0, Epsilon, Velocity };

/** "x0", "eps" or "v" (the names of run configs); nullopt for anything else. */
std::optional<Prediction> parsePrediction(std::string_view name);
/** The inverse of parsePrediction: "x0", "eps" or "v". */
std::string_view predictionName(Prediction prediction);

/**
 * The cosine schedule of Nichol & Dhariwal 2021 (eq. 17) in continuous time:
 * ᾱ(t) = f(t)/f(0), f(t) = cos²(((t + s)/(1 + s))·π/2), s = 0.008.
 * f(1) = 0, so ᾱ is clamped below at minAlphaBar (default 1e-6, reached only for
 * t > 0.99936): at t = 1 the signal is then √ᾱ = 1e-3 of x0 — pure noise for any purpose —
 * while x0 recovered from ε or v stays finite (at most ×1000 the output's error).
 */
class CosineSchedule {
 public:
  explicit CosineSchedule(double offset = 0.008, double minAlphaBar = 1e-6);

  /** ᾱ(t) for one t in [0, 1] (clamped to it); ᾱ(0) = 1 exactly. */
  double alphaBar(double t) const;
  /**
   * ᾱ(t) elementwise, as float64 on t's device whatever t's dtype: near t = 0 float32 would
   * round ᾱ to 1 and lose 1 − ᾱ, which the ε and v conversions need.
   */
  at::Tensor alphaBar(const at::Tensor& t) const;

  double offset() const { return m_offset; }
  double minAlphaBar() const { return m_minAlphaBar; }

 private:
  double angle(double t) const;  ///< ((t + s)/(1 + s))·π/2

  double m_offset;
  double m_minAlphaBar;
};

/** A noised batch: x_t, the ε that made it, and ᾱ [B] (float64) of each sample. */
struct NoisedBatch {
  at::Tensor xt;
  at::Tensor epsilon;
  at::Tensor alphaBar;
};

/**
 * x_t = √ᾱ(t)·x0 + √(1−ᾱ(t))·ε for x0 [B, ...] and t [B]. ε comes from torch's global RNG
 * (so a training checkpoint's RNG state covers it) unless `generator` is given (validation
 * with fixed noise).
 */
NoisedBatch addNoise(const at::Tensor& x0, const at::Tensor& t, const CosineSchedule& schedule,
                     std::optional<at::Generator> generator = std::nullopt);

/** What the model should output for `prediction`: x0, ε, or v = √ᾱ·ε − √(1−ᾱ)·x0. */
at::Tensor trainingTarget(Prediction prediction, const at::Tensor& x0, const at::Tensor& epsilon,
                          const at::Tensor& alphaBar);

/**
 * x̂0 from the model output at x_t: output itself, (x_t − √(1−ᾱ)·ε̂)/√ᾱ, or
 * √ᾱ·x_t − √(1−ᾱ)·v̂. `alphaBar` is [B] (or a scalar) and broadcasts over x_t [B, ...].
 */
at::Tensor x0FromOutput(const at::Tensor& xt, const at::Tensor& output, const at::Tensor& alphaBar,
                        Prediction prediction);
/**
 * ε̂ from the model output at x_t: (x_t − √ᾱ·x̂0)/√(1−ᾱ), output itself, or
 * √(1−ᾱ)·x_t + √ᾱ·v̂. For x0-prediction it is undefined at ᾱ = 1 (t = 0).
 */
at::Tensor epsilonFromOutput(const at::Tensor& xt, const at::Tensor& output,
                             const at::Tensor& alphaBar, Prediction prediction);

/** N(0, I) noise shaped like `like`: from `generator` when given, else torch's global RNG. */
at::Tensor standardNormal(const at::Tensor& like, const std::optional<at::Generator>& generator);

/** The denoiser as the sampler sees it: (x_t [B, ...], t [B] float32) → output like x_t. */
using DenoiserFunction = std::function<at::Tensor(const at::Tensor&, const at::Tensor&)>;

/**
 * DDIM (Song, Meng & Ermon 2021, eq. 12) from x_T = `noise` at t = 1 down to t = 0 over the
 * S uniform times t_i = i/S, i = S..1. Each step predicts x̂0 and ε̂ at t_i and moves to
 * t_{i−1}:  x ← √ᾱ_prev·x̂0 + √(1 − ᾱ_prev − σ²)·ε̂ + σ·z,
 * σ = η·√((1−ᾱ_prev)/(1−ᾱ_t))·√(1 − ᾱ_t/ᾱ_prev). ᾱ(0) = 1, so the last step returns x̂0.
 * η = 0 is deterministic and draws nothing; for η > 0, z comes from `generator` when given,
 * else from torch's global RNG. Runs under NoGradGuard; putting a module in eval() is the
 * caller's business. Throws std::invalid_argument for steps < 1 or eta < 0.
 */
at::Tensor ddimSample(const DenoiserFunction& model, const at::Tensor& noise, int64_t steps,
                      double eta, Prediction prediction, const CosineSchedule& schedule,
                      std::optional<at::Generator> generator = std::nullopt);

}  // namespace strata::model
