#pragma once
// What Strata knows of one architecture, torch-free, in one descriptor per architecture
// (io/arch/<family>.cpp): the config.json class name and fields, where each tensor lives in a
// Hugging Face checkpoint and the shape config.json implies for it, its norms, and how a GGUF
// file of it becomes a Hugging Face folder (general.architecture, tensor names, fixes).
// model/ attaches the block function (architecture_list.h) and maps the tensor roles below onto
// its BlockWeights / OuterWeights (model/backbone/weight_layout.cpp).

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "io/hf/hf_config.h"

namespace strata::io {

class ConfigFields;
class GgufFile;
struct GgufModelPlan;

/** A tensor of one transformer block, by role (model::BlockWeights has one field per role). */
enum class BlockTensor {
  AttnNorm,
  AttnNormBias,  ///< input_layernorm / ln_1
  Q,
  QBias,
  K,
  KBias,
  V,
  VBias,
  QNorm,
  KNorm,  ///< per-head RMSNorms of queries and keys
  Qkv,
  QkvBias,  ///< fused projections (GPT-2 c_attn, GPT-NeoX query_key_value)
  Out,
  OutBias,
  AttnOutNorm,  ///< a norm on the attention's output (Gemma-3 post_attention_layernorm)
  MlpNorm,
  MlpNormBias,
  MlpOutNorm,  ///< a norm on the MLP's output (Gemma-3 post_feedforward_layernorm)
  Gate,
  GateBias,
  Up,
  UpBias,
  Down,
  DownBias,
};

/** A tensor outside the blocks, by role (model::OuterWeights). */
enum class OuterTensor { Tokens, Positions, FinalNorm, FinalNormBias, Head };

struct BlockTensorSlot {
  BlockTensor tensor;
  std::string suffix;  ///< after the block prefix, e.g. "self_attn.q_proj.weight"
  std::vector<int64_t> shape;
  bool required = true;  ///< false: loaded when the checkpoint has it (Llama mlp_bias)
};

struct OuterTensorSlot {
  OuterTensor tensor;
  std::string name;
  std::vector<int64_t> shape;
};

/** Where a checkpoint of one config keeps its tensors. */
struct TensorLayout {
  std::string blockPrefix;  ///< "model.layers.", "transformer.h.", "h.", "gpt_neox.layers."
  std::vector<BlockTensorSlot> blockSlots;
  std::vector<OuterTensorSlot> outerSlots;  ///< the tied head is absent here (see tiedHead)
  bool tiedHead = false;                    ///< head = token embedding
  /** Tensors a checkpoint may carry that no forward pass reads (GPT-2 attn.bias, NeoX
   *  rotary_emb.inv_freq, a tied lm_head.weight written anyway): name endings. */
  std::vector<std::string> ignoredSuffixes;
};

using HasTensor = std::function<bool(const std::string&)>;

/**
 * One architecture. Constant-initialised (pointers and flags only), so the descriptors of other
 * files may be read during static initialisation.
 */
struct ArchitectureSpec {
  const char* className;  ///< config.json's architectures[0], e.g. "LlamaForCausalLM"
  /** Fills the architecture's fields of `config` from config.json (the common ones, shapes
   *  and the checks of them are parseModelConfig's). Throws ConfigError naming the field. */
  void (*readConfig)(const ConfigFields& fields, ModelConfig& config);
  /** The checkpoint layout for `config`; `hasTensor` answers for the checkpoint at `source`
   *  where a spelling depends on it (GPT-2's optional "transformer." prefix). */
  TensorLayout (*tensors)(const ModelConfig& config, const HasTensor& hasTensor,
                          const std::filesystem::path& source);
  /** RMSNorms scale by (1 + w) (Gemma); llama.cpp's GGUF then stores 1 + w. */
  bool unitOffsetNorms = false;
  /** Strata's trainable copy computes this architecture's forward pass exactly. */
  bool trainable = true;
  /** GGUF's general.architecture; nullptr when Strata reads no GGUF file of it. */
  const char* ggufName = nullptr;
  /** The Hugging Face folder a GGUF file of this architecture becomes (gguf_model_plan.h). */
  GgufModelPlan (*planGguf)(const GgufFile& gguf) = nullptr;
};

/** The descriptor of `architecture`. */
const ArchitectureSpec& architectureSpec(Architecture architecture);
/** The architecture whose config.json class name is `className`, if Strata supports it. */
std::optional<Architecture> architectureOfClassName(const std::string& className);
/** The architecture whose GGUF general.architecture is `ggufName`, or nullptr. */
const ArchitectureSpec* architectureOfGgufName(const std::string& ggufName);

}  // namespace strata::io
