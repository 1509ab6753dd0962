#pragma once
// A Hugging Face config.json, read into the one structure every backbone understands.
// Supported: LlamaForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM, GPT2LMHeadModel,
// GPTNeoXForCausalLM. Anything else is a ConfigError that lists these.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace strata {

enum class Architecture { Llama, Qwen2, Qwen3, Gpt2, GptNeoX };

/** How a backbone tells positions apart. Rotary positions (Llama, Qwen, GPT-NeoX) extend past
 *  max_position_embeddings; a learned absolute table (GPT-2's wpe) has no row beyond it. */
enum class PositionEncoding { Rotary, LearnedAbsolute };

/** RoPE frequency scaling, as `rope_scaling` / `rope_parameters` describe it. */
struct RopeScaling {
  std::string type;  ///< "llama3", "linear", "dynamic", ... (only llama3 and linear change RoPE)
  double factor = 1.0;
  double lowFreqFactor = 1.0;
  double highFreqFactor = 4.0;
  int64_t originalMaxPositions = 8192;
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

}  // namespace strata
