#pragma once
// Where each tensor of a supported architecture lives in a Hugging Face checkpoint, and the
// shape config.json implies for it, as fields of BlockWeights / OuterWeights: the
// architecture's descriptor (io/arch/<family>.cpp, io::TensorLayout) with each tensor role
// mapped to its field. Pure name mapping: nothing is read here but names.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "io/hf/hf_config.h"
#include "model/backbone/block_weights.h"

namespace strata::model {

/** One tensor of a block: field, name after the block prefix, expected shape. */
struct BlockSlot {
  at::Tensor BlockWeights::*field = nullptr;
  std::string suffix;  ///< e.g. "self_attn.q_proj.weight"
  std::vector<int64_t> shape;
  bool required = true;  ///< false: loaded when the checkpoint has it (Llama mlp_bias)
};

/** One tensor outside the blocks. An empty name: the architecture has no such tensor. */
struct OuterSlot {
  at::Tensor OuterWeights::*field = nullptr;
  std::string name;
  std::vector<int64_t> shape;
};

struct WeightLayout {
  std::string blockPrefix;  ///< "model.layers.", "transformer.h.", "h.", "gpt_neox.layers."
  std::vector<BlockSlot> blockSlots;
  std::vector<OuterSlot> outerSlots;  ///< the tied head is absent here (see tiedHead)
  bool tiedHead = false;              ///< head = token embedding
  /** Tensors a checkpoint may carry that no forward pass reads (GPT-2 attn.bias, NeoX
   *  rotary_emb.inv_freq, a tied lm_head.weight written anyway): name endings. */
  std::vector<std::string> ignoredSuffixes;

  std::string blockTensorName(int64_t layer, const BlockSlot& slot) const {
    return blockPrefix + std::to_string(layer) + "." + slot.suffix;
  }
  /** The name of the outer tensor held in `field`, or "" when the architecture has none. */
  std::string outerName(at::Tensor OuterWeights::*field) const;
};

/**
 * The layout of `config`'s architecture (its descriptor's `tensors`). For GPT-2 the
 * `transformer.` prefix is taken from the checkpoint (`hasTensor`): older files
 * (openai-community/gpt2) store bare names. Throws FormatError naming `source` and the token
 * embedding when neither spelling is present.
 */
WeightLayout weightLayoutOf(const io::ModelConfig& config,
                            const std::function<bool(const std::string&)>& hasTensor,
                            const std::filesystem::path& source);

}  // namespace strata::model
