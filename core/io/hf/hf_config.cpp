#include "io/hf/hf_config.h"

#include <array>
#include <cmath>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/text_file.h"

namespace strata::io {

namespace {

using nlohmann::json;

struct ArchitectureName {
  Architecture architecture;
  const char* className;
};

constexpr std::array<ArchitectureName, 6> kArchitectures{{
    {Architecture::Llama, "LlamaForCausalLM"},
    {Architecture::Qwen2, "Qwen2ForCausalLM"},
    {Architecture::Qwen3, "Qwen3ForCausalLM"},
    {Architecture::Gpt2, "GPT2LMHeadModel"},
    {Architecture::GptNeoX, "GPTNeoXForCausalLM"},
    {Architecture::Gemma3, "Gemma3ForCausalLM"},
}};

/** Typed access to config.json fields, naming the file and field in every error. */
class ConfigFields {
 public:
  ConfigFields(const json& root, const std::filesystem::path& file) : m_root(root), m_file(file) {}

  bool has(const char* key) const { return m_root.contains(key) && !m_root[key].is_null(); }

  int64_t positiveInt(const char* key) const {
    const int64_t value = integer(key);
    if (value <= 0)
      throw ConfigError(m_file, key, "must be positive, got " + std::to_string(value));
    return value;
  }

  int64_t integer(const char* key) const {
    const json& value = required(key);
    if (!value.is_number_integer())
      throw ConfigError(m_file, key, "must be an integer, got " + std::string(value.type_name()));
    return value.get<int64_t>();
  }

  int64_t integerOr(const char* key, int64_t fallback) const {
    return has(key) ? integer(key) : fallback;
  }

  double numberOr(const char* key, double fallback) const {
    if (!has(key)) return fallback;
    const json& value = m_root[key];
    if (!value.is_number())
      throw ConfigError(m_file, key, "must be a number, got " + std::string(value.type_name()));
    return value.get<double>();
  }

  bool booleanOr(const char* key, bool fallback) const {
    if (!has(key)) return fallback;
    const json& value = m_root[key];
    if (!value.is_boolean())
      throw ConfigError(m_file, key,
                        "must be true or false, got " + std::string(value.type_name()));
    return value.get<bool>();
  }

  std::string stringOr(const char* key, std::string fallback) const {
    if (!has(key)) return fallback;
    const json& value = m_root[key];
    if (!value.is_string())
      throw ConfigError(m_file, key, "must be a string, got " + std::string(value.type_name()));
    return value.get<std::string>();
  }

  /** A token id field that may be one integer or a list of integers (eos_token_id). */
  std::vector<int64_t> idList(const char* key) const {
    if (!has(key)) return {};
    const json& value = m_root[key];
    if (value.is_number_integer()) return {value.get<int64_t>()};
    if (value.is_array()) {
      std::vector<int64_t> ids;
      for (const json& id : value) {
        if (!id.is_number_integer()) throw ConfigError(m_file, key, "list must hold integers");
        ids.push_back(id.get<int64_t>());
      }
      return ids;
    }
    throw ConfigError(m_file, key, "must be an integer or a list of integers");
  }

  const json& required(const char* key) const {
    if (!has(key)) throw ConfigError(m_file, key, "is missing");
    return m_root[key];
  }

  const json& root() const { return m_root; }
  const std::filesystem::path& file() const { return m_file; }

 private:
  const json& m_root;
  const std::filesystem::path& m_file;
};

Architecture architectureOf(const ConfigFields& fields, std::string& className) {
  const json& list = fields.required("architectures");
  if (!list.is_array() || list.empty() || !list[0].is_string())
    throw ConfigError(fields.file(), "architectures", "must be a non-empty list of class names");
  className = list[0].get<std::string>();
  for (const auto& known : kArchitectures)
    if (className == known.className) return known.architecture;
  throw ConfigError(
      fields.file(), "architectures",
      "unsupported architecture '" + className + "'; Strata supports: " + supportedArchitectures());
}

/** A rope_scaling object, or one layer type's entry of rope_parameters; nullopt for "default". */
std::optional<RopeScaling> ropeScalingFrom(const json& node, const std::filesystem::path& file,
                                           const std::string& key) {
  if (!node.is_object()) throw ConfigError(file, key, "must be an object");
  ConfigFields scaling(node, file);
  RopeScaling result;
  result.type = scaling.stringOr("rope_type", scaling.stringOr("type", "default"));
  if (result.type == "default") return std::nullopt;
  result.factor = scaling.numberOr("factor", 1.0);
  result.lowFreqFactor = scaling.numberOr("low_freq_factor", 1.0);
  result.highFreqFactor = scaling.numberOr("high_freq_factor", 4.0);
  result.originalMaxPositions = scaling.integerOr("original_max_position_embeddings", 8192);
  if (result.factor <= 0) throw ConfigError(file, key + ".factor", "must be positive");
  if (result.type == "llama3" && result.highFreqFactor <= result.lowFreqFactor)
    throw ConfigError(file, key + ".high_freq_factor", "must be greater than low_freq_factor");
  return result;
}

std::optional<RopeScaling> ropeScalingOf(const ConfigFields& fields) {
  // Newer configs moved rope_scaling into rope_parameters (which also carries rope_theta).
  const char* key = fields.has("rope_scaling") ? "rope_scaling" : "rope_parameters";
  if (!fields.has(key)) return std::nullopt;
  return ropeScalingFrom(fields.root()[key], fields.file(), key);
}

void readLlamaFamily(const ConfigFields& f, ModelConfig& c) {
  c.vocabSize = f.positiveInt("vocab_size");
  c.hiddenSize = f.positiveInt("hidden_size");
  c.numLayers = f.positiveInt("num_hidden_layers");
  c.numHeads = f.positiveInt("num_attention_heads");
  c.numKeyValueHeads = f.integerOr("num_key_value_heads", c.numHeads);
  c.headDim = f.integerOr("head_dim", 0);
  c.intermediateSize = f.positiveInt("intermediate_size");
  c.maxPositions = f.integerOr("max_position_embeddings", 2048);
  c.normEps = f.numberOr("rms_norm_eps", 1e-6);
  c.ropeTheta = f.numberOr("rope_theta", 10000.0);
  if (f.has("rope_parameters") && f.root()["rope_parameters"].contains("rope_theta"))
    c.ropeTheta =
        ConfigFields(f.root()["rope_parameters"], f.file()).numberOr("rope_theta", c.ropeTheta);
  c.ropeScaling = ropeScalingOf(f);
  c.hiddenAct = f.stringOr("hidden_act", "silu");
  c.tieWordEmbeddings = f.booleanOr("tie_word_embeddings", false);
  c.attentionBias = c.architecture == Architecture::Qwen2 || f.booleanOr("attention_bias", false);
  c.qkNorm = c.architecture == Architecture::Qwen3;
}

void readGpt2(const ConfigFields& f, ModelConfig& c) {
  c.vocabSize = f.positiveInt("vocab_size");
  c.hiddenSize = f.positiveInt("n_embd");
  c.numLayers = f.positiveInt("n_layer");
  c.numHeads = f.positiveInt("n_head");
  c.numKeyValueHeads = c.numHeads;
  c.intermediateSize = f.integerOr("n_inner", 4 * c.hiddenSize);
  c.maxPositions = f.positiveInt("n_positions");
  c.normEps = f.numberOr("layer_norm_epsilon", 1e-5);
  c.hiddenActField = "activation_function";
  c.hiddenAct = f.stringOr("activation_function", "gelu_new");
  c.positionEncoding = PositionEncoding::LearnedAbsolute;  // wpe
  c.tieWordEmbeddings = f.booleanOr("tie_word_embeddings", true);
  c.attentionBias = true;
}

void readGptNeoX(const ConfigFields& f, ModelConfig& c) {
  c.vocabSize = f.positiveInt("vocab_size");
  c.hiddenSize = f.positiveInt("hidden_size");
  c.numLayers = f.positiveInt("num_hidden_layers");
  c.numHeads = f.positiveInt("num_attention_heads");
  c.numKeyValueHeads = c.numHeads;
  c.intermediateSize = f.positiveInt("intermediate_size");
  c.maxPositions = f.integerOr("max_position_embeddings", 2048);
  c.normEps = f.numberOr("layer_norm_eps", 1e-5);
  // Pythia's configs say rotary_emb_base / rotary_pct; transformers 5 writes them into
  // rope_parameters as rope_theta / partial_rotary_factor. 0.25 is GPTNeoXConfig's default.
  c.ropeTheta = f.numberOr("rotary_emb_base", 10000.0);
  c.rotaryFraction = f.numberOr("rotary_pct", 0.25);
  if (f.has("rope_parameters") && f.root()["rope_parameters"].is_object()) {
    const ConfigFields rope(f.root()["rope_parameters"], f.file());
    c.ropeTheta = rope.numberOr("rope_theta", c.ropeTheta);
    c.rotaryFraction = rope.numberOr("partial_rotary_factor", c.rotaryFraction);
  }
  c.ropeScaling = ropeScalingOf(f);
  c.hiddenAct = f.stringOr("hidden_act", "gelu");
  c.tieWordEmbeddings = f.booleanOr("tie_word_embeddings", false);
  c.parallelResidual = f.booleanOr("use_parallel_residual", true);
  c.attentionBias = f.booleanOr("attention_bias", true);
  if (c.rotaryFraction <= 0.0 || c.rotaryFraction > 1.0)
    throw ConfigError(f.file(), "rotary_pct", "must be in (0, 1]");
}

// Gemma3TextConfig.__post_init__: layer_types, or (older configs) every
// sliding_window_pattern-th layer global, 6 when neither is given.
void readGemma3Layers(const ConfigFields& f, ModelConfig& c) {
  c.layerAttention.clear();
  if (f.has("layer_types")) {
    const json& list = f.root()["layer_types"];
    if (!list.is_array() || static_cast<int64_t>(list.size()) != c.numLayers)
      throw ConfigError(
          f.file(), "layer_types",
          "must list one type for each of the " + std::to_string(c.numLayers) + " layers");
    for (const json& type : list) {
      const std::string name = type.is_string() ? type.get<std::string>() : type.dump();
      if (name != "sliding_attention" && name != "full_attention")
        throw ConfigError(
            f.file(), "layer_types",
            "unknown layer type " + name + " (known: sliding_attention, full_attention)");
      c.layerAttention.push_back(name == "sliding_attention" ? LayerAttention::Sliding
                                                             : LayerAttention::Full);
    }
  } else {
    const int64_t pattern = f.integerOr("sliding_window_pattern", 6);
    if (pattern <= 0) throw ConfigError(f.file(), "sliding_window_pattern", "must be positive");
    for (int64_t layer = 0; layer < c.numLayers; ++layer)
      c.layerAttention.push_back((layer + 1) % pattern != 0 ? LayerAttention::Sliding
                                                            : LayerAttention::Full);
  }
  bool anySliding = false;
  for (const LayerAttention kind : c.layerAttention) anySliding |= kind == LayerAttention::Sliding;
  if (!anySliding) return;
  if (f.root().contains("sliding_window") && f.root()["sliding_window"].is_null())
    throw ConfigError(f.file(), "sliding_window", "is null, but some layers are sliding_attention");
  c.slidingWindow = f.has("sliding_window") ? f.positiveInt("sliding_window") : 4096;
}

// Gemma3TextConfig.convert_rope_params_to_dict: rope_parameters per layer type (transformers
// 5), or, as the Hub's configs have it, rope_theta and rope_scaling for the full layers and
// rope_local_base_freq for the sliding ones. A rope_scaling given as well wins for the full ones.
void readGemma3Rope(const ConfigFields& f, ModelConfig& c) {
  c.ropeTheta = f.numberOr("rope_theta", 1e6);
  c.localRopeTheta = f.numberOr("rope_local_base_freq", 1e4);
  if (f.has("rope_parameters")) {
    const json& node = f.root()["rope_parameters"];
    if (!node.is_object()) throw ConfigError(f.file(), "rope_parameters", "must be an object");
    const auto read = [&](const char* type, double& theta, std::optional<RopeScaling>& scaling) {
      if (!node.contains(type) || node[type].is_null()) return;
      const std::string key = std::string("rope_parameters.") + type;
      scaling = ropeScalingFrom(node[type], f.file(), key);
      theta = ConfigFields(node[type], f.file()).numberOr("rope_theta", theta);
    };
    read("full_attention", c.ropeTheta, c.ropeScaling);
    read("sliding_attention", c.localRopeTheta, c.localRopeScaling);
  }
  if (f.has("rope_scaling"))
    c.ropeScaling = ropeScalingFrom(f.root()["rope_scaling"], f.file(), "rope_scaling");
}

// Gemma3TextConfig (configuration_gemma3.py): its defaults stand in for absent fields, as they
// do when transformers loads the file.
void readGemma3(const ConfigFields& f, ModelConfig& c) {
  c.vocabSize = f.positiveInt("vocab_size");
  c.hiddenSize = f.positiveInt("hidden_size");
  c.numLayers = f.positiveInt("num_hidden_layers");
  c.numHeads = f.positiveInt("num_attention_heads");
  c.numKeyValueHeads = f.integerOr("num_key_value_heads", 4);
  c.headDim = f.integerOr("head_dim", 256);
  c.intermediateSize = f.positiveInt("intermediate_size");
  c.maxPositions = f.integerOr("max_position_embeddings", 131072);
  c.normEps = f.numberOr("rms_norm_eps", 1e-6);
  c.hiddenActField = "hidden_activation";
  c.hiddenAct = f.stringOr("hidden_activation", "gelu_pytorch_tanh");
  c.tieWordEmbeddings = f.booleanOr("tie_word_embeddings", true);
  c.attentionBias = f.booleanOr("attention_bias", false);
  c.qkNorm = true;
  c.embeddingScale = std::sqrt(static_cast<double>(c.hiddenSize));  // hidden_size ** 0.5
  const double scalar = f.numberOr("query_pre_attn_scalar", 256.0);
  if (scalar <= 0) throw ConfigError(f.file(), "query_pre_attn_scalar", "must be positive");
  c.attentionScale = std::pow(scalar, -0.5);  // Gemma3Attention.scaling
  c.finalLogitSoftcap = f.numberOr("final_logit_softcapping", 0.0);
  if (f.has("final_logit_softcapping") && c.finalLogitSoftcap <= 0)
    throw ConfigError(f.file(), "final_logit_softcapping", "must be positive or null");
  // attn_logit_softcapping is read by nobody: Gemma3Attention keeps it but never passes it to
  // the attention function (transformers 5.25), so the scores are not capped.
  if (f.booleanOr("use_bidirectional_attention", false))
    throw ConfigError(f.file(), "use_bidirectional_attention",
                      "bidirectional Gemma-3 (EmbeddingGemma) is not supported, only the causal "
                      "language model");
  readGemma3Layers(f, c);
  readGemma3Rope(f, c);
}

void checkShapes(const std::filesystem::path& file, ModelConfig& c) {
  if (c.headDim == 0) {
    if (c.hiddenSize % c.numHeads != 0)
      throw ConfigError(file, "num_attention_heads",
                        "hidden size " + std::to_string(c.hiddenSize) + " is not divisible by " +
                            std::to_string(c.numHeads) + " heads (and no head_dim is given)");
    c.headDim = c.hiddenSize / c.numHeads;
  }
  if (c.headDim <= 0) throw ConfigError(file, "head_dim", "must be positive");
  if (c.numKeyValueHeads <= 0 || c.numHeads % c.numKeyValueHeads != 0)
    throw ConfigError(file, "num_key_value_heads",
                      std::to_string(c.numKeyValueHeads) + " does not divide the " +
                          std::to_string(c.numHeads) + " attention heads");
  if (c.headDim % 2 != 0) throw ConfigError(file, "head_dim", "must be even for rotary embeddings");
}

}  // namespace

std::string architectureClassName(Architecture architecture) {
  for (const auto& known : kArchitectures)
    if (known.architecture == architecture) return known.className;
  return "unknown";
}

std::string supportedArchitectures() {
  std::string list;
  for (const auto& known : kArchitectures)
    list += (list.empty() ? "" : ", ") + std::string(known.className);
  return list;
}

ModelConfig parseModelConfig(const std::string& text, const std::filesystem::path& file) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& error) {
    throw FormatError(file, std::string("not valid JSON: ") + error.what());
  }
  if (!root.is_object()) throw FormatError(file, "must hold a JSON object");

  ConfigFields fields(root, file);
  ModelConfig config;
  config.architecture = architectureOf(fields, config.architectureName);
  config.modelType = fields.stringOr("model_type", "");
  config.torchDtype = fields.stringOr("torch_dtype", fields.stringOr("dtype", ""));
  config.bosTokenIds = fields.idList("bos_token_id");
  config.eosTokenIds = fields.idList("eos_token_id");

  switch (config.architecture) {
    case Architecture::Llama:
    case Architecture::Qwen2:
    case Architecture::Qwen3:
      readLlamaFamily(fields, config);
      break;
    case Architecture::Gpt2:
      readGpt2(fields, config);
      break;
    case Architecture::GptNeoX:
      readGptNeoX(fields, config);
      break;
    case Architecture::Gemma3:
      readGemma3(fields, config);
      break;
  }
  checkShapes(file, config);
  return config;
}

ModelConfig readModelConfig(const std::filesystem::path& file) {
  return parseModelConfig(readWholeFile(file), file);
}

}  // namespace strata::io
