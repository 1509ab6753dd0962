#include <ATen/TensorOperators.h>
#include <ATen/ops/linear.h>

#include "model/backbone/attention.h"
#include "model/backbone/blocks.h"
#include "model/backbone/norms.h"

namespace strata::model {

// Llama, Qwen2, Qwen3 (modeling_llama.py, LlamaDecoderLayer.forward): pre-RMSNorm, GQA with
// RoPE, SwiGLU MLP.
at::Tensor llamaBlock(const BlockWeights& w, const at::Tensor& hidden, const BlockContext& context,
                      int64_t /*layer*/) {
  const io::ModelConfig& c = *context.config;
  const int64_t batch = hidden.size(0), length = hidden.size(1);

  const at::Tensor x = rmsNorm(hidden, w.attnNorm, c.normEps);
  at::Tensor q = at::linear(x, w.q, w.qBias).view({batch, length, c.numHeads, c.headDim});
  at::Tensor k = at::linear(x, w.k, w.kBias).view({batch, length, c.numKeyValueHeads, c.headDim});
  const at::Tensor v =
      at::linear(x, w.v, w.vBias).view({batch, length, c.numKeyValueHeads, c.headDim});
  if (w.qNorm.defined()) {  // Qwen3: RMSNorm over head_dim, per head, before RoPE
    q = rmsNorm(q, w.qNorm, c.normEps);
    k = rmsNorm(k, w.kNorm, c.normEps);
  }
  q = applyRope(q.transpose(1, 2), context.attention.rope);
  k = applyRope(k.transpose(1, 2), context.attention.rope);
  const at::Tensor attended =
      attend(q, k, v.transpose(1, 2), context.attention.mask, context.attention.causal);
  const at::Tensor afterAttention = hidden + at::linear(attended, w.out, w.outBias);

  // SwiGLU (Shazeer 2020): down(act(gate(x)) · up(x)).
  const at::Tensor y = rmsNorm(afterAttention, w.mlpNorm, c.normEps);
  const at::Tensor gated = gatedProduct(at::linear(y, w.gate, w.gateBias),
                                        at::linear(y, w.up, w.upBias), context.activation);
  return afterAttention + at::linear(gated, w.down, w.downBias);
}

}  // namespace strata::model
