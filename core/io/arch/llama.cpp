// The Llama family: Llama (2, 3, SmolLM, Mistral-style files), Qwen2 and Qwen3 — one decoder
// (modeling_llama.py; model/backbone/llama_block.cpp), Qwen2 with q/k/v biases, Qwen3 with
// per-head q/k norms. Everything Strata knows of them but the block function: config.json
// fields, checkpoint tensors, GGUF names and fixes (architecture_spec.h).

#include <set>

#include "io/arch/architecture_spec.h"
#include "io/gguf/gguf_model_plan_parts.h"
#include "io/hf/config_fields.h"

namespace strata::io {

namespace {

using BT = BlockTensor;
using OT = OuterTensor;

// ---- config.json (LlamaConfig, Qwen2Config, Qwen3Config)

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

// ---- checkpoint tensors

// modeling_llama.py / modeling_qwen2.py / modeling_qwen3.py
TensorLayout llamaLayout(const ModelConfig& c, const HasTensor&, const std::filesystem::path&) {
  const int64_t d = c.hiddenSize, q = c.numHeads * c.headDim, kv = c.numKeyValueHeads * c.headDim;
  const int64_t ff = c.intermediateSize;
  TensorLayout layout;
  layout.blockPrefix = "model.layers.";
  auto& s = layout.blockSlots;
  s = {{BT::AttnNorm, "input_layernorm.weight", {d}},
       {BT::Q, "self_attn.q_proj.weight", {q, d}},
       {BT::K, "self_attn.k_proj.weight", {kv, d}},
       {BT::V, "self_attn.v_proj.weight", {kv, d}},
       {BT::Out, "self_attn.o_proj.weight", {d, q}},
       {BT::MlpNorm, "post_attention_layernorm.weight", {d}},
       {BT::Gate, "mlp.gate_proj.weight", {ff, d}},
       {BT::Up, "mlp.up_proj.weight", {ff, d}},
       {BT::Down, "mlp.down_proj.weight", {d, ff}}};
  if (c.attentionBias) {
    s.push_back({BT::QBias, "self_attn.q_proj.bias", {q}});
    s.push_back({BT::KBias, "self_attn.k_proj.bias", {kv}});
    s.push_back({BT::VBias, "self_attn.v_proj.bias", {kv}});
    // Llama's attention_bias also puts a bias on o_proj; Qwen2's o_proj never has one.
    if (c.architecture == Architecture::Llama)
      s.push_back({BT::OutBias, "self_attn.o_proj.bias", {d}});
  }
  if (c.qkNorm) {
    s.push_back({BT::QNorm, "self_attn.q_norm.weight", {c.headDim}});
    s.push_back({BT::KNorm, "self_attn.k_norm.weight", {c.headDim}});
  }
  // Llama's mlp_bias is not part of ModelConfig: use the biases when the checkpoint has them.
  s.push_back({BT::GateBias, "mlp.gate_proj.bias", {ff}, false});
  s.push_back({BT::UpBias, "mlp.up_proj.bias", {ff}, false});
  s.push_back({BT::DownBias, "mlp.down_proj.bias", {d}, false});

  layout.outerSlots = {{OT::Tokens, "model.embed_tokens.weight", {c.vocabSize, d}},
                       {OT::FinalNorm, "model.norm.weight", {d}}};
  layout.tiedHead = c.tieWordEmbeddings;
  if (layout.tiedHead)
    layout.ignoredSuffixes.push_back("lm_head.weight");
  else
    layout.outerSlots.push_back({OT::Head, "lm_head.weight", {c.vocabSize, d}});
  layout.ignoredSuffixes.push_back(".rotary_emb.inv_freq");
  return layout;
}

// ---- GGUF

/** One block's tensors, in the order Hugging Face writes them. Qwen3 has per-head RMSNorms of
 *  queries and keys and no q/k/v biases (llama.cpp's LLM_ARCH_QWEN3 loads none; a file that has
 *  them gets an unused-tensor line); llama and qwen2 may have the biases. */
std::vector<GgufBlockName> llamaFamilyBlockNames(bool qwen3) {
  std::vector<GgufBlockName> names = {
      {"attn_norm.weight", "input_layernorm.weight", true},
      {"attn_q.weight", "self_attn.q_proj.weight", true},
      {"attn_k.weight", "self_attn.k_proj.weight", true},
      {"attn_v.weight", "self_attn.v_proj.weight", true},
  };
  if (qwen3)
    names.insert(names.end(), {{"attn_q_norm.weight", "self_attn.q_norm.weight", true},
                               {"attn_k_norm.weight", "self_attn.k_norm.weight", true}});
  else
    names.insert(names.end(), {{"attn_q.bias", "self_attn.q_proj.bias", false},
                               {"attn_k.bias", "self_attn.k_proj.bias", false},
                               {"attn_v.bias", "self_attn.v_proj.bias", false}});
  names.insert(names.end(), {{"attn_output.weight", "self_attn.o_proj.weight", true},
                             {"ffn_norm.weight", "post_attention_layernorm.weight", true},
                             {"ffn_gate.weight", "mlp.gate_proj.weight", true},
                             {"ffn_up.weight", "mlp.up_proj.weight", true},
                             {"ffn_down.weight", "mlp.down_proj.weight", true}});
  return names;
}

/** llama, qwen2 and qwen3: Llama's decoder, with q/k/v biases (Qwen2) or q/k norms (Qwen3). */
GgufModelPlan planLlamaFamily(const GgufFile& gguf, Architecture member) {
  const bool llama = member == Architecture::Llama, qwen2 = member == Architecture::Qwen2,
             qwen3 = member == Architecture::Qwen3;
  const ArchitectureSpec& spec = architectureSpec(member);
  const std::string arch = spec.ggufName;
  GgufHyper h = readGgufHyper(gguf, arch);
  // Mistral-style llama files (Mistral-Nemo, Mistral-Small: head_dim 128 at width 5120 and 32
  // heads) and every Qwen3 carry a head width of their own; llama's rope.dimension_count stands
  // in for it (transformers maps it to head_dim). qwen2 files carry no reliable rotary count
  // (transformers ignores it); llama.cpp rotates the whole head there too. Strata's Llama-family
  // attention rotates the whole head.
  h.headDim = ggufHeadDim(gguf, h, {.fromRotaryCount = llama, .checkRotaryCount = !qwen2});
  bool ropeFreqsUsed = false;
  const GgufJson scaling = ggufRopeScaling(gguf, h, /*ropeFreqs=*/llama, ropeFreqsUsed);
  GgufJson c = ggufCommonConfig(gguf, h, spec.className, arch);
  c["hidden_act"] = "silu";
  c["rope_theta"] = h.ropeTheta;
  // transformers 5 reads rope_parameters (and takes a rope_scaling, when given, in its place).
  GgufJson rope = {{"rope_theta", h.ropeTheta}, {"rope_type", "default"}};
  if (!scaling.empty()) {
    c["rope_scaling"] = scaling;
    rope.update(scaling);
  }
  c["rope_parameters"] = rope;
  c["attention_bias"] = qwen2;
  if (llama) c["mlp_bias"] = false;
  if (qwen3) {  // llama.cpp's qwen3 attends over the whole context in every layer
    c["use_sliding_window"] = false;
    c["sliding_window"] = nullptr;
  }
  GgufModelPlan plan;
  plan.architecture = arch;
  plan.configJson = c.dump(2) + "\n";
  std::set<std::string> used;
  if (ropeFreqsUsed) used.insert("rope_freqs.weight");
  // llama.cpp's convert_hf_to_gguf permutes llama's q/k rows (interleaved RoPE pairs).
  addGgufTensors(gguf, h, llamaFamilyBlockNames(qwen3), {.unpermuteQk = llama}, used, plan);
  if (qwen2)  // Qwen2 always has q/k/v biases; a file without them is not a Qwen2 model
    for (const char* bias : {"attn_q.bias", "attn_k.bias", "attn_v.bias"})
      if (!gguf.findTensor(std::string("blk.0.") + bias))
        throw FormatError(gguf.path(), "is missing (Qwen2 has q/k/v biases)",
                          std::string("blk.0.") + bias);
  return plan;
}

}  // namespace

extern const ArchitectureSpec kLlamaArchitecture{
    .className = "LlamaForCausalLM",
    .readConfig = readLlamaFamily,
    .tensors = llamaLayout,
    .ggufName = "llama",
    .planGguf = [](const GgufFile& gguf) { return planLlamaFamily(gguf, Architecture::Llama); },
};

extern const ArchitectureSpec kQwen2Architecture{
    .className = "Qwen2ForCausalLM",
    .readConfig = readLlamaFamily,
    .tensors = llamaLayout,
    .ggufName = "qwen2",
    .planGguf = [](const GgufFile& gguf) { return planLlamaFamily(gguf, Architecture::Qwen2); },
};

extern const ArchitectureSpec kQwen3Architecture{
    .className = "Qwen3ForCausalLM",
    .readConfig = readLlamaFamily,
    .tensors = llamaLayout,
    .ggufName = "qwen3",
    .planGguf = [](const GgufFile& gguf) { return planLlamaFamily(gguf, Architecture::Qwen3); },
};

}  // namespace strata::io
