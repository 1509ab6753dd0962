#include <ATen/TensorOperators.h>
#include <ATen/ops/addmm.h>

#include "model/backbone/attention.h"
#include "model/backbone/blocks.h"
#include "model/backbone/norms.h"

namespace strata::model {

namespace {

// transformers' Conv1D: weight [in, out], y = x·W + b (addmm, as Conv1D.forward does).
at::Tensor conv1d(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias) {
  std::vector<int64_t> shape = x.sizes().vec();
  shape.back() = weight.size(1);
  return at::addmm(bias, x.reshape({-1, x.size(-1)}), weight).view(shape);
}

}  // namespace

// GPT-2 (modeling_gpt2.py, GPT2Block.forward): pre-LayerNorm, fused Conv1D c_attn, GELU MLP.
at::Tensor gpt2Block(const BlockWeights& w, const at::Tensor& hidden, const BlockContext& context,
                     int64_t /*layer*/) {
  const io::ModelConfig& c = *context.config;
  const int64_t batch = hidden.size(0), length = hidden.size(1), d = c.hiddenSize;

  const at::Tensor qkv =
      conv1d(layerNorm(hidden, w.attnNorm, w.attnNormBias, c.normEps), w.qkv, w.qkvBias);
  const auto heads = [&](int64_t part) {  // q | k | v, each [B, T, d] → [B, H, T, hd]
    return qkv.slice(-1, part * d, (part + 1) * d)
        .reshape({batch, length, c.numHeads, c.headDim})
        .transpose(1, 2);
  };
  const at::Tensor attended =
      attend(heads(0), heads(1), heads(2), context.attention.mask, context.attention.causal);
  const at::Tensor afterAttention = hidden + conv1d(attended, w.out, w.outBias);

  const at::Tensor y = layerNorm(afterAttention, w.mlpNorm, w.mlpNormBias, c.normEps);
  return afterAttention +
         conv1d(activateFresh(conv1d(y, w.up, w.upBias), context.activation), w.down, w.downBias);
}

}  // namespace strata::model
