#pragma once
// Scaled dot-product attention with grouped key/value heads, and the masks that shape it.

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include "model/attention_options.h"

namespace strata {

/**
 * The positions [B, T] (int64, on `device`) a pass uses: options.positions when given
 * (broadcast from [T]), else counted over real tokens (see AttentionOptions).
 */
at::Tensor resolvePositions(const AttentionOptions& options, int64_t batch, int64_t length,
                            at::Device device);

/**
 * Which key each query may see, as an additive mask: 0 where it may, −inf where not,
 * [B or 1, 1, T, T] in `dtype` on `device`, or an undefined tensor when every pair may
 * (bidirectional, no padding). Causal: key ≤ query. Padding: real keys only, and the diagonal
 * always (a padding query would otherwise see nothing and give NaN). Added to the scores, it
 * costs one pass over them, where a boolean mask needed its negation and a masked fill.
 */
at::Tensor attentionMask(const AttentionOptions& options, int64_t batch, int64_t length,
                         at::Device device, at::ScalarType dtype);

/**
 * `options` resolved for one [batch, length] batch: the additive mask and, when
 * `inverseFrequencies` is defined (every architecture but GPT-2), the rotary tables, in `dtype`
 * on `device`. Built once per batch and shared by every block of the pass.
 */
PreparedAttention prepareAttention(const AttentionOptions& options, int64_t batch, int64_t length,
                                   const at::Tensor& inverseFrequencies, at::Device device,
                                   at::ScalarType dtype);

/**
 * softmax(q·kᵀ/√headDim + mask)·v. q [B, H, T, hd]; k, v [B, KV, T, hd] with KV dividing H:
 * query head h uses key/value head h / (H/KV), as transformers' repeat_kv (GQA, Ainslie et
 * al. 2023) — here by broadcasting, without copying k and v. The softmax runs in float32
 * whatever the dtype of q (as transformers' eager attention does for bfloat16). Returns the
 * heads merged back: [B, T, H·hd].
 */
at::Tensor attend(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                  const at::Tensor& mask);

}  // namespace strata
