#pragma once
// One transformer block of each supported family, as plain functions over BlockWeights, so a
// block can run on weights that were just streamed in and are dropped right after.

#include <ATen/core/Tensor.h>

#include <filesystem>

#include "io/arch/architecture_list.h"
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

// The block function of each architecture: one declaration per line of
// io/arch/architecture_list.h (a family's function is declared once per member, which C++
// allows), defined in <family>_block.cpp, which says what it computes. `layer` is the block's
// index (0-based, HF's layers[layer]): Gemma-3's layers differ by it; the others ignore it.
#define STRATA_DECLARE_BLOCK(name, block)                                                        \
  at::Tensor block(const BlockWeights& w, const at::Tensor& hidden, const BlockContext& context, \
                   int64_t layer);
STRATA_ARCHITECTURES(STRATA_DECLARE_BLOCK)
#undef STRATA_DECLARE_BLOCK

/** The block function of the context's architecture (architecture_list.h), for block `layer`. */
at::Tensor runBlock(const BlockWeights& w, const at::Tensor& hidden, const BlockContext& context,
                    int64_t layer);

/** The final norm of `config`'s architecture over `hidden`: LayerNorm when there is a bias,
 *  else RMSNorm, scaled by (1 + w) where the architecture's norms are (Gemma). */
at::Tensor finalNormOf(const io::ModelConfig& config, const at::Tensor& hidden,
                       const at::Tensor& weight, const at::Tensor& bias);

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
