#pragma once
// Scaled dot-product attention with grouped key/value heads, and the masks that shape it.

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <optional>

#include "model/backbone/attention_options.h"

namespace strata::model {

/**
 * The positions [B, T] (int64, on `device`) a pass uses: options.positions when given
 * (broadcast from [T]), else counted over real tokens (see AttentionOptions).
 */
at::Tensor resolvePositions(const AttentionOptions& options, int64_t batch, int64_t length,
                            at::Device device);

/**
 * Which key each query may see, as an additive mask: 0 where it may, −inf where not,
 * [B or 1, 1, T, T] in `dtype` on `device`, or an undefined tensor when every pair may
 * (bidirectional, no padding). Causal: key ≤ query. `window` > 0 (Gemma-3's sliding layers):
 * also query − key < window when causal, |query − key| < window when not; by index, as
 * transformers does (the same as by position for real tokens: padding is at either end).
 * Padding: real keys only, and the diagonal always (a padding query would otherwise see
 * nothing and give NaN). Added to the scores, it costs one pass over them, where a boolean mask
 * needed its negation and a masked fill.
 */
at::Tensor attentionMask(const AttentionOptions& options, int64_t batch, int64_t length,
                         at::Device device, at::ScalarType dtype, int64_t window = 0);

/** Gemma-3's sliding layers as prepareAttention needs them. */
struct SlidingWindow {
  int64_t window = 0;             ///< 0: the model has no sliding layers
  at::Tensor inverseFrequencies;  ///< their RoPE frequencies (the local base)
};

/**
 * `options` resolved for one [batch, length] batch: the additive mask and, when
 * `inverseFrequencies` is defined (every architecture but GPT-2), the rotary tables, in `dtype`
 * on `device`; with `sliding.window` > 0, PreparedAttention::sliding too. Built once per batch
 * and shared by every block of the pass.
 */
PreparedAttention prepareAttention(const AttentionOptions& options, int64_t batch, int64_t length,
                                   const at::Tensor& inverseFrequencies, at::Device device,
                                   at::ScalarType dtype, const SlidingWindow& sliding = {});

/**
 * softmax(q·kᵀ·scale + mask)·v per head (scale: 1/√headDim unless given), by LibTorch's
 * scaled_dot_product_attention (its flash / memory-efficient kernels where the inputs allow). q [B,
 * H, Tq, hd]; k, v [B, KV, Tk, hd] with KV dividing H: query head h uses key/value head h / (H/KV),
 * as transformers' repeat_kv (GQA, Ainslie et al. 2023). `mask`: additive (0 / −inf) or boolean
 * (true = may attend), broadcastable to [B, H, Tq, Tk], or undefined; `causal` (Tq == Tk,
 * mask undefined): key ≤ query. A mask that needs a gradient goes by hand
 * (referenceAttention): the fused kernels give none. Returns [B, H, Tq, hd] in q's dtype.
 */
at::Tensor scaledDotProductAttention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                     const at::Tensor& mask, bool causal = false,
                                     std::optional<double> scale = std::nullopt);

/**
 * The same, written out: grouped heads by broadcasting (no copy of k and v), the softmax in
 * float32 whatever q's dtype (as transformers' eager attention does for bfloat16). The
 * reference scaledDotProductAttention is tested against.
 */
at::Tensor referenceAttention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                              const at::Tensor& mask, bool causal = false,
                              std::optional<double> scale = std::nullopt);

/** scaledDotProductAttention with the heads merged back: [B, Tq, H·hd]. */
at::Tensor attend(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                  const at::Tensor& mask, bool causal = false,
                  std::optional<double> scale = std::nullopt);

}  // namespace strata::model
