#pragma once
// The normalisations of the supported backbones.

#include <ATen/core/Tensor.h>

namespace strata::model {

/**
 * RMSNorm (Zhang & Sennrich 2019) as LlamaRMSNorm computes it: x / sqrt(mean(x²) + eps) in
 * float32, cast back to x's dtype, then multiplied by `weight` (the cast comes before the
 * weight, NOTES.md). Used by Llama, Qwen2, and per head by Qwen3's q/k norms.
 */
at::Tensor rmsNorm(const at::Tensor& x, const at::Tensor& weight, double eps);

/**
 * Gemma's RMSNorm as Gemma3RMSNorm computes it: x / sqrt(mean(x²) + eps) · (1 + w), all in
 * float32, cast back to x's dtype only at the end (the opposite order to rmsNorm's; transformers
 * PR 29402). Checkpoints store w, initialised to zeros, not 1 + w.
 */
at::Tensor gemmaRmsNorm(const at::Tensor& x, const at::Tensor& weight, double eps);

/** LayerNorm over the last dimension with weight and bias (GPT-2, GPT-NeoX). */
at::Tensor layerNorm(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias,
                     double eps);

}  // namespace strata::model
