#pragma once
// A Hugging Face config.json, read into the one structure every backbone understands.
// Supported: the architectures of io/arch/architecture_list.h (LlamaForCausalLM,
// Qwen2ForCausalLM, Qwen3ForCausalLM, GPT2LMHeadModel, GPTNeoXForCausalLM, Gemma3ForCausalLM);
// each one's fields are read by its descriptor (io/arch/<family>.cpp). Anything else is a
// ConfigError that lists these.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "io/arch/architecture_list.h"

namespace strata::io {

/** One value per line of architecture_list.h, in its order. */
enum class Architecture {
#define STRATA_ARCHITECTURE_VALUE(name, block) name,
  STRATA_ARCHITECTURES(STRATA_ARCHITECTURE_VALUE)
#undef STRATA_ARCHITECTURE_VALUE
};

/** How a backbone tells positions apart. Rotary positions (Llama, Qwen, GPT-NeoX, Gemma)
 *  extend past max_position_embeddings; a learned absolute table (GPT-2's wpe) has none. */
enum class PositionEncoding { Rotary, LearnedAbsolute };

/** RoPE frequency scaling, as `rope_scaling` / `rope_parameters` describe it. */
struct RopeScaling {
  std::string type;  ///< "llama3", "linear", "dynamic", ... (only llama3 and linear change RoPE)
  double factor = 1.0;
  double lowFreqFactor = 1.0;
  double highFreqFactor = 4.0;
  int64_t originalMaxPositions = 8192;
};

/** What a layer's attention sees (Gemma-3's layer_types; every other architecture: Full). */
enum class LayerAttention {
  Full,     ///< "full_attention": every earlier key
  Sliding,  ///< "sliding_attention": the slidingWindow latest keys, the query's own included
};

struct ModelConfig {
  Architecture architecture = Architecture::Llama;
  std::string architectureName;  ///< as written in config.json, e.g. "LlamaForCausalLM"
  std::string modelType;         ///< config.json's model_type
  int64_t vocabSize = 0;
  int64_t hiddenSize = 0;
  int64_t numLayers = 0;
  int64_t numHeads = 0;
  int64_t numKeyValueHeads = 0;  ///< == numHeads unless GQA
  int64_t headDim = 0;           ///< explicit when given (Qwen3), else hiddenSize / numHeads
  int64_t intermediateSize = 0;
  int64_t maxPositions = 0;
  double normEps = 1e-5;        ///< rms_norm_eps or layer_norm_eps / layer_norm_epsilon
  double ropeTheta = 10000.0;   ///< rope_theta / rotary_emb_base
  double rotaryFraction = 1.0;  ///< GPT-NeoX rotary_pct: share of head_dim that is rotated
  std::optional<RopeScaling> ropeScaling;
  PositionEncoding positionEncoding = PositionEncoding::Rotary;
  bool tieWordEmbeddings = false;
  bool attentionBias = false;     ///< q/k/v projections carry a bias (Qwen2; optional for Llama)
  bool qkNorm = false;            ///< per-head RMSNorm on q and k (Qwen3)
  bool parallelResidual = false;  ///< GPT-NeoX use_parallel_residual
  std::string hiddenAct;          ///< "silu", "gelu_new", "gelu", ...
  std::string hiddenActField = "hidden_act";  ///< the config.json key hiddenAct came from
  std::string torchDtype;                     ///< config.json's torch_dtype, informational
  std::vector<int64_t> bosTokenIds;
  std::vector<int64_t> eosTokenIds;  ///< eos_token_id may be one id or a list

  // Gemma-3 (modeling_gemma3.py); the defaults leave every other architecture as it is.
  /** Per layer; empty when every layer attends fully. */
  std::vector<LayerAttention> layerAttention;
  /** Sliding layers: a query sees keys q − window < k ≤ q (masking_utils'
   *  sliding_window_overlay). 0 when there are none. */
  int64_t slidingWindow = 0;
  double localRopeTheta = 10000.0;  ///< RoPE base of the sliding layers (rope_local_base_freq)
  std::optional<RopeScaling> localRopeScaling;  ///< ropeScaling is the full layers' one
  /** h_0 = token embedding × this, the factor first rounded to the compute dtype
   *  (Gemma3TextScaledWordEmbedding: √hidden_size as a float32 tensor cast to the weights'
   *  dtype, so 16 for d = 256 but 55.5 for √3072 in bfloat16). */
  double embeddingScale = 1.0;
  /** Attention scores are q·k times this; 0: 1/√headDim. Gemma-3: query_pre_attn_scalar^−½. */
  double attentionScale = 0.0;
  /** logits = cap·tanh(logits / cap) when > 0 (final_logit_softcapping). */
  double finalLogitSoftcap = 0.0;

  bool slidingLayer(int64_t layer) const {
    return layer >= 0 && layer < static_cast<int64_t>(layerAttention.size()) &&
           layerAttention[static_cast<std::size_t>(layer)] == LayerAttention::Sliding;
  }

  /** True when no position at or past maxPositions exists (a learned position table). */
  bool positionsEndAtMax() const { return positionEncoding == PositionEncoding::LearnedAbsolute; }
};

/** Name of the architecture as config.json spells it ("LlamaForCausalLM", ...). */
std::string architectureClassName(Architecture architecture);
/** The supported architectures, comma-separated, for error messages and --help. */
std::string supportedArchitectures();

/** Parses config.json text; `file` names it in errors. Throws ConfigError / FormatError. */
ModelConfig parseModelConfig(const std::string& json, const std::filesystem::path& file);
/** Reads and parses a config.json file. */
ModelConfig readModelConfig(const std::filesystem::path& file);

}  // namespace strata::io
