#pragma once
// Rotary position embeddings as Hugging Face applies them (RoFormer, Su et al. 2021): the
// head vector's first `rotaryDim` components are split in two halves that rotate together
// (`rotate_half`), not in interleaved pairs as llama2.c does. GPT-NeoX rotates only a share of
// each head (rotary_pct); the rest passes through.

#include <ATen/core/Tensor.h>

#include <optional>
#include <string>

#include "io/hf/hf_config.h"

namespace strata::model {

/** True for the rope_scaling types Strata applies: none/"default", "linear" and "llama3". */
bool ropeScalingSupported(const std::string& type);

/**
 * Inverse frequencies θ_i = base^(−2i/rotaryDim), i < rotaryDim/2, as float32 on the CPU, with
 * `scaling` applied: "linear" divides every θ_i by the factor (the same as dividing positions);
 * "llama3" follows transformers' _compute_llama3_parameters (NOTES.md "Hugging Face config
 * traps"): wavelengths above original/low_freq_factor are divided by the factor, those below
 * original/high_freq_factor kept, and those between interpolated smoothly.
 * Throws std::invalid_argument for an odd rotaryDim or a type ropeScalingSupported() rejects.
 */
at::Tensor ropeInverseFrequencies(int64_t rotaryDim, double base,
                                  const std::optional<io::RopeScaling>& scaling);

/** cos and sin of position × θ, shaped [B, 1, T, rotaryDim] (both halves repeat θ). */
struct RopeTables {
  at::Tensor cos;
  at::Tensor sin;
  bool defined() const { return cos.defined(); }
};

/** Tables for `positions` [B, T] (integers) on the device of `positions`, computed in float32
 *  and then cast to `dtype` (as transformers does for a bfloat16 model). */
RopeTables ropeTables(const at::Tensor& inverseFrequencies, const at::Tensor& positions,
                      at::ScalarType dtype = at::kFloat);

/**
 * Rotates x [B, H, T, headDim]: the first tables.cos.size(-1) components become
 * x·cos + rotate_half(x)·sin, the others are returned unchanged.
 */
at::Tensor applyRope(const at::Tensor& x, const RopeTables& tables);

}  // namespace strata::model
