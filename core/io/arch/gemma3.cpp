// Gemma-3 (modeling_gemma3.py, Gemma3ForCausalLM; model/backbone/gemma3_block.cpp): (1 + w)
// RMSNorms before and after attention and MLP, q/k norms, sliding and full layers, a scaled
// embedding and a capped head. Everything Strata knows of it but the block function:
// config.json fields, checkpoint tensors, GGUF names and fixes (architecture_spec.h).

#include <cmath>

#include "io/arch/architecture_spec.h"
#include "io/gguf/gguf_model_plan_parts.h"
#include "io/hf/config_fields.h"

namespace strata::io {

namespace {

using BT = BlockTensor;
using OT = OuterTensor;
using nlohmann::json;

// ---- config.json (Gemma3TextConfig)

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

// ---- checkpoint tensors

// modeling_gemma3.py (Gemma3ForCausalLM): Llama's names, q/k norms, and the norms after
// attention and after the MLP; post_attention_layernorm is one of those, not the MLP's input norm.
TensorLayout gemma3Layout(const ModelConfig& c, const HasTensor&, const std::filesystem::path&) {
  const int64_t d = c.hiddenSize, q = c.numHeads * c.headDim, kv = c.numKeyValueHeads * c.headDim;
  const int64_t ff = c.intermediateSize;
  TensorLayout layout;
  layout.blockPrefix = "model.layers.";
  auto& s = layout.blockSlots;
  s = {{BT::AttnNorm, "input_layernorm.weight", {d}},
       {BT::Q, "self_attn.q_proj.weight", {q, d}},
       {BT::K, "self_attn.k_proj.weight", {kv, d}},
       {BT::V, "self_attn.v_proj.weight", {kv, d}},
       {BT::QNorm, "self_attn.q_norm.weight", {c.headDim}},
       {BT::KNorm, "self_attn.k_norm.weight", {c.headDim}},
       {BT::Out, "self_attn.o_proj.weight", {d, q}},
       {BT::AttnOutNorm, "post_attention_layernorm.weight", {d}},
       {BT::MlpNorm, "pre_feedforward_layernorm.weight", {d}},
       {BT::Gate, "mlp.gate_proj.weight", {ff, d}},
       {BT::Up, "mlp.up_proj.weight", {ff, d}},
       {BT::Down, "mlp.down_proj.weight", {d, ff}},
       {BT::MlpOutNorm, "post_feedforward_layernorm.weight", {d}}};
  if (c.attentionBias) {  // Gemma3Attention: attention_bias puts a bias on all four
    s.push_back({BT::QBias, "self_attn.q_proj.bias", {q}});
    s.push_back({BT::KBias, "self_attn.k_proj.bias", {kv}});
    s.push_back({BT::VBias, "self_attn.v_proj.bias", {kv}});
    s.push_back({BT::OutBias, "self_attn.o_proj.bias", {d}});
  }
  layout.outerSlots = {{OT::Tokens, "model.embed_tokens.weight", {c.vocabSize, d}},
                       {OT::FinalNorm, "model.norm.weight", {d}}};
  layout.tiedHead = c.tieWordEmbeddings;
  if (layout.tiedHead)
    layout.ignoredSuffixes.push_back("lm_head.weight");
  else
    layout.outerSlots.push_back({OT::Head, "lm_head.weight", {c.vocabSize, d}});
  return layout;
}

// ---- GGUF

const std::vector<GgufBlockName>& gemma3BlockNames() {
  static const std::vector<GgufBlockName> names = {
      {"attn_norm.weight", "input_layernorm.weight", true},
      {"attn_q.weight", "self_attn.q_proj.weight", true},
      {"attn_k.weight", "self_attn.k_proj.weight", true},
      {"attn_v.weight", "self_attn.v_proj.weight", true},
      {"attn_q_norm.weight", "self_attn.q_norm.weight", true},
      {"attn_k_norm.weight", "self_attn.k_norm.weight", true},
      {"attn_output.weight", "self_attn.o_proj.weight", true},
      {"post_attention_norm.weight", "post_attention_layernorm.weight", true},
      {"ffn_norm.weight", "pre_feedforward_layernorm.weight", true},
      {"ffn_gate.weight", "mlp.gate_proj.weight", true},
      {"ffn_up.weight", "mlp.up_proj.weight", true},
      {"ffn_down.weight", "mlp.down_proj.weight", true},
      {"post_ffw_norm.weight", "post_feedforward_layernorm.weight", true},
  };
  return names;
}

GgufModelPlan planGemma3(const GgufFile& gguf) {
  GgufHyper h = readGgufHyper(gguf, "gemma3");
  h.headDim = gguf.has("gemma3.attention.key_length")
                  ? ggufPositive(gguf, "gemma3.attention.key_length")
                  : h.width / h.heads;
  GgufJson c = ggufCommonConfig(gguf, h, "Gemma3ForCausalLM", "gemma3_text");
  c["hidden_activation"] = "gelu_pytorch_tanh";
  // GGUF carries neither the local RoPE base, the query scale nor the layer pattern; llama.cpp
  // (src/llama-model.cpp, LLM_ARCH_GEMMA3) fixes them: RoPE base 10000 on sliding layers, every
  // sixth layer global, queries scaled by 1/sqrt(head_dim) except in the 62-layer 27B model
  // (1/sqrt(width/heads)). transformers takes Gemma3TextConfig's defaults, the same for every
  // size but 27B (query_pre_attn_scalar 256).
  const double localTheta = 10000.0;
  // Gemma-3 4B and larger scale the global layers' positions linearly (factor 8); llama.cpp
  // applies gemma3.rope.scaling.factor to those layers only (rope_freq_scale_train_swa = 1).
  bool ropeFreqsUsed = false;
  GgufJson full = {{"rope_type", "default"}, {"rope_theta", h.ropeTheta}};
  full.update(ggufRopeScaling(gguf, h, /*ropeFreqs=*/false, ropeFreqsUsed));
  c["rope_parameters"] = {
      {"sliding_attention", {{"rope_type", "default"}, {"rope_theta", localTheta}}},
      {"full_attention", full}};
  c["rope_theta"] = h.ropeTheta;
  c["rope_local_base_freq"] = localTheta;
  c["query_pre_attn_scalar"] = h.layers == 62 ? h.width / h.heads : h.headDim;
  c["sliding_window"] = gguf.has("gemma3.attention.sliding_window")
                            ? ggufPositive(gguf, "gemma3.attention.sliding_window")
                            : int64_t{4096};
  GgufJson layerTypes = GgufJson::array();
  for (int64_t l = 0; l < h.layers; ++l)
    layerTypes.push_back((l + 1) % 6 == 0 ? "full_attention" : "sliding_attention");
  c["layer_types"] = layerTypes;
  c["attention_bias"] = false;
  c["final_logit_softcapping"] = nullptr;
  c["attn_logit_softcapping"] = nullptr;
  GgufModelPlan plan;
  plan.architecture = "gemma3";
  plan.configJson = c.dump(2) + "\n";
  addGgufTensors(gguf, h, gemma3BlockNames(), {.normsPlusOne = true}, {}, plan);  // (1 + w)
  return plan;
}

}  // namespace

extern const ArchitectureSpec kGemma3Architecture{
    .className = "Gemma3ForCausalLM",
    .readConfig = readGemma3,
    .tensors = gemma3Layout,
    .unitOffsetNorms = true,
    // The trainable copy embeds, attends and heads the Llama / GPT way: Gemma-3's √d embedding
    // scale, logit softcap and sliding layers are the frozen Backbone's alone.
    .trainable = false,
    .ggufName = "gemma3",
    .planGguf = planGemma3,
};

}  // namespace strata::io
