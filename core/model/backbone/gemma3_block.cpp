#include <ATen/TensorOperators.h>
#include <ATen/ops/linear.h>

#include "model/backbone/attention.h"
#include "model/backbone/blocks.h"
#include "model/backbone/norms.h"

namespace strata::model {

// Gemma-3 (modeling_gemma3.py): q/k norms, GQA with query_pre_attn_scalar, GELU-tanh gated
// MLP; block `layer` attends through a sliding window or fully, with the local or global RoPE,
// as config.json says.
// Gemma3DecoderLayer.forward. Every norm is Gemma's (1 + w) RMSNorm, and the attention and MLP
// outputs are normed again before they join the residual stream ("sandwich" norms).
at::Tensor gemma3Block(const BlockWeights& w, const at::Tensor& hidden, const BlockContext& context,
                       int64_t layer) {
  const io::ModelConfig& c = *context.config;
  const int64_t batch = hidden.size(0), length = hidden.size(1);
  // Gemma3TextModel hands each layer the mask and the rotary tables of its layer type.
  const PreparedAttention& prepared = context.attention;
  const bool sliding = c.slidingLayer(layer);
  const at::Tensor& mask = sliding ? prepared.sliding.mask : prepared.mask;
  const bool causal = sliding ? prepared.sliding.causal : prepared.causal;
  const RopeTables& rope = sliding ? prepared.sliding.rope : prepared.rope;

  // Gemma3Attention.forward: q/k norms over head_dim before RoPE; scores scaled by
  // query_pre_attn_scalar^−½, not head_dim^−½. (attn_logit_softcapping is never applied.)
  const at::Tensor x = gemmaRmsNorm(hidden, w.attnNorm, c.normEps);
  at::Tensor q = at::linear(x, w.q, w.qBias).view({batch, length, c.numHeads, c.headDim});
  at::Tensor k = at::linear(x, w.k, w.kBias).view({batch, length, c.numKeyValueHeads, c.headDim});
  const at::Tensor v =
      at::linear(x, w.v, w.vBias).view({batch, length, c.numKeyValueHeads, c.headDim});
  q = applyRope(gemmaRmsNorm(q, w.qNorm, c.normEps).transpose(1, 2), rope);
  k = applyRope(gemmaRmsNorm(k, w.kNorm, c.normEps).transpose(1, 2), rope);
  const at::Tensor attended = attend(q, k, v.transpose(1, 2), mask, causal, c.attentionScale);
  const at::Tensor afterAttention =
      hidden + gemmaRmsNorm(at::linear(attended, w.out, w.outBias), w.attnOutNorm, c.normEps);

  // Gemma3MLP: down(gelu_tanh(gate(y)) · up(y)), y the pre-feedforward norm's output.
  const at::Tensor y = gemmaRmsNorm(afterAttention, w.mlpNorm, c.normEps);
  const at::Tensor gated =
      gatedProduct(at::linear(y, w.gate), at::linear(y, w.up), context.activation);
  return afterAttention + gemmaRmsNorm(at::linear(gated, w.down), w.mlpOutNorm, c.normEps);
}

}  // namespace strata::model
