#pragma once
// The tensors of one transformer block and the model's outer tensors, in the compute dtype
// on the backbone's device, each kept in its checkpoint's own layout (nn.Linear [out, in],
// GPT-2 Conv1D [in, out], GPT-NeoX per-head fused q|k|v), so that each maps 1:1 to a Hugging
// Face tensor. An undefined tensor is one the architecture (or this checkpoint) does not have.

#include <ATen/core/Tensor.h>

namespace strata::model {

struct BlockWeights {
  at::Tensor attnNorm, attnNormBias;  ///< input_layernorm / ln_1
  // Llama family: separate projections.
  at::Tensor q, qBias, k, kBias, v, vBias;
  at::Tensor qNorm, kNorm;  ///< Qwen3, Gemma-3: RMSNorm weights over head_dim
  // Fused projections: GPT-2 c_attn (Conv1D [d, 3d]); GPT-NeoX query_key_value ([3d, d]).
  at::Tensor qkv, qkvBias;
  at::Tensor out, outBias;          ///< o_proj / attn.c_proj / attention.dense
  at::Tensor attnOutNorm;           ///< Gemma-3 post_attention_layernorm (on o_proj's output)
  at::Tensor mlpNorm, mlpNormBias;  ///< post_attention_layernorm / ln_2 / pre_feedforward_layernorm
  at::Tensor mlpOutNorm;            ///< Gemma-3 post_feedforward_layernorm (on down_proj's output)
  at::Tensor gate, gateBias;        ///< Llama family SwiGLU gate
  at::Tensor up, upBias;            ///< up_proj / mlp.c_fc / dense_h_to_4h
  at::Tensor down, downBias;        ///< down_proj / mlp.c_proj / dense_4h_to_h
};

/** Everything outside the blocks. */
struct OuterWeights {
  at::Tensor tokens;     ///< token embedding [vocab, d]
  at::Tensor positions;  ///< GPT-2 learned positions [n_positions, d]; undefined otherwise
  at::Tensor finalNorm, finalNormBias;
  at::Tensor head;  ///< LM head [vocab, d]; the same tensor as `tokens` when tied
};

}  // namespace strata::model
