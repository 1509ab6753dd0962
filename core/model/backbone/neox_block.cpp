#include <ATen/TensorOperators.h>
#include <ATen/ops/linear.h>

#include "model/backbone/attention.h"
#include "model/backbone/blocks.h"
#include "model/backbone/norms.h"

namespace strata::model {

// GPT-NeoX / Pythia (modeling_gpt_neox.py, GPTNeoXLayer.forward): per-head fused q|k|v,
// partial RoPE, parallel or sequential residual.
at::Tensor neoxBlock(const BlockWeights& w, const at::Tensor& hidden, const BlockContext& context,
                     int64_t /*layer*/) {
  const io::ModelConfig& c = *context.config;
  const int64_t batch = hidden.size(0), length = hidden.size(1), hd = c.headDim;

  // query_key_value is laid out per head: [.., heads, q | k | v] (NOTES.md).
  const at::Tensor x = layerNorm(hidden, w.attnNorm, w.attnNormBias, c.normEps);
  const at::Tensor qkv = at::linear(x, w.qkv, w.qkvBias).view({batch, length, c.numHeads, 3 * hd});
  const auto part = [&](int64_t i) {
    return qkv.slice(-1, i * hd, (i + 1) * hd).permute({0, 2, 1, 3});
  };
  const RopeTables& rope = context.attention.rope;  // rotates the first rotary_ndims only
  const at::Tensor q = applyRope(part(0), rope);
  const at::Tensor k = applyRope(part(1), rope);
  const at::Tensor attention = at::linear(
      attend(q, k, part(2), context.attention.mask, context.attention.causal), w.out, w.outBias);

  const auto mlp = [&](const at::Tensor& input) {
    const at::Tensor y = layerNorm(input, w.mlpNorm, w.mlpNormBias, c.normEps);
    return at::linear(activateFresh(at::linear(y, w.up, w.upBias), context.activation), w.down,
                      w.downBias);
  };
  // Summation order as in GPTNeoXLayer.forward, so rounding matches the reference.
  if (c.parallelResidual) return mlp(hidden) + attention + hidden;
  const at::Tensor afterAttention = attention + hidden;
  return mlp(afterAttention) + afterAttention;
}

}  // namespace strata::model
