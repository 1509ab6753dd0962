// GPT-NeoX / Pythia (modeling_gpt_neox.py; model/backbone/neox_block.cpp): per-head fused
// q|k|v, partial RoPE, parallel or sequential residual. Everything Strata knows of it but the
// block function (architecture_spec.h); Strata reads no GGUF file of it.

#include "common/error.h"
#include "io/arch/architecture_spec.h"
#include "io/hf/config_fields.h"

namespace strata::io {

namespace {

using BT = BlockTensor;
using OT = OuterTensor;

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

// modeling_gpt_neox.py
TensorLayout neoxLayout(const ModelConfig& c, const HasTensor&, const std::filesystem::path&) {
  const int64_t d = c.hiddenSize, ff = c.intermediateSize;
  TensorLayout layout;
  layout.blockPrefix = "gpt_neox.layers.";
  auto& s = layout.blockSlots;
  s = {{BT::AttnNorm, "input_layernorm.weight", {d}},
       {BT::AttnNormBias, "input_layernorm.bias", {d}},
       {BT::Qkv, "attention.query_key_value.weight", {3 * d, d}},
       {BT::Out, "attention.dense.weight", {d, d}},
       {BT::MlpNorm, "post_attention_layernorm.weight", {d}},
       {BT::MlpNormBias, "post_attention_layernorm.bias", {d}},
       {BT::Up, "mlp.dense_h_to_4h.weight", {ff, d}},
       {BT::UpBias, "mlp.dense_h_to_4h.bias", {ff}},
       {BT::Down, "mlp.dense_4h_to_h.weight", {d, ff}},
       {BT::DownBias, "mlp.dense_4h_to_h.bias", {d}}};
  if (c.attentionBias) {
    s.push_back({BT::QkvBias, "attention.query_key_value.bias", {3 * d}});
    s.push_back({BT::OutBias, "attention.dense.bias", {d}});
  }
  layout.outerSlots = {{OT::Tokens, "gpt_neox.embed_in.weight", {c.vocabSize, d}},
                       {OT::FinalNorm, "gpt_neox.final_layer_norm.weight", {d}},
                       {OT::FinalNormBias, "gpt_neox.final_layer_norm.bias", {d}}};
  layout.tiedHead = c.tieWordEmbeddings;
  if (layout.tiedHead)
    layout.ignoredSuffixes.push_back("embed_out.weight");
  else
    layout.outerSlots.push_back({OT::Head, "embed_out.weight", {c.vocabSize, d}});
  layout.ignoredSuffixes.insert(
      layout.ignoredSuffixes.end(),
      {".attention.bias", ".attention.masked_bias", ".rotary_emb.inv_freq"});
  return layout;
}

}  // namespace

extern const ArchitectureSpec kGptNeoXArchitecture{
    .className = "GPTNeoXForCausalLM",
    .readConfig = readGptNeoX,
    .tensors = neoxLayout,
};

}  // namespace strata::io
