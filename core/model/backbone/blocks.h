#pragma once
// One transformer block of each supported family, as plain functions over BlockWeights, so a
// block can run on weights that were just streamed in and are dropped right after.

#include <ATen/core/Tensor.h>

#include <filesystem>

#include "io/hf/hf_config.h"
#include "model/backbone/activation.h"
#include "model/backbone/attention.h"
#include "model/backbone/attention_options.h"
#include "model/backbone/block_weights.h"

namespace strata::model {

/** What every block of one forward pass shares. */
struct BlockContext {
  const io::ModelConfig* config = nullptr;
  Activation activation = Activation::Silu;
  PreparedAttention attention;  ///< the batch's mask and rotary tables
};

/** Llama, Qwen2, Qwen3 (modeling_llama.py): pre-RMSNorm, GQA with RoPE, SwiGLU MLP. */
at::Tensor llamaBlock(const BlockWeights& w, const at::Tensor& hidden, const BlockContext& context);
/** GPT-2 (modeling_gpt2.py): pre-LayerNorm, fused Conv1D c_attn, GELU MLP. */
at::Tensor gpt2Block(const BlockWeights& w, const at::Tensor& hidden, const BlockContext& context);
/** GPT-NeoX / Pythia (modeling_gpt_neox.py): per-head fused q|k|v, partial RoPE, parallel or
 *  sequential residual. */
at::Tensor neoxBlock(const BlockWeights& w, const at::Tensor& hidden, const BlockContext& context);

/** Gemma-3 (modeling_gemma3.py): (1 + w) RMSNorms before and after attention and MLP, q/k
 *  norms, GQA with query_pre_attn_scalar, GELU-tanh gated MLP; block `layer` (0-based) attends
 *  through a sliding window or fully, with the local or global RoPE, as config.json says. */
at::Tensor gemma3Block(const BlockWeights& w, const at::Tensor& hidden, const BlockContext& context,
                       int64_t layer);

/** The block function of the context's architecture, for block `layer` (0-based, HF's
 *  layers[layer]: Gemma-3's layers differ by their index). */
at::Tensor runBlock(const BlockWeights& w, const at::Tensor& hidden, const BlockContext& context,
                    int64_t layer);

/** config.json's activation; ConfigError naming `configFile` when unsupported. */
Activation blockActivation(const io::ModelConfig& config, const std::filesystem::path& configFile);

/** RoPE inverse frequencies of the architecture, or undefined for GPT-2 (learned positions).
 *  ConfigError naming `configFile` for a rope scaling or rotary_pct that cannot be rotated. */
at::Tensor rotaryInverseFrequencies(const io::ModelConfig& config,
                                    const std::filesystem::path& configFile);

/** Gemma-3's sliding layers: their window and the RoPE frequencies of the local base (and
 *  local rope scaling, if any); window 0 for a model without sliding layers. ConfigError naming
 *  `configFile` for a local rope scaling that cannot be applied. */
SlidingWindow slidingWindowOf(const io::ModelConfig& config,
                              const std::filesystem::path& configFile);

}  // namespace strata::model
