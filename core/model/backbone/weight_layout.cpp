#include "model/backbone/weight_layout.h"

#include "common/error.h"

namespace strata::model {

namespace {

using B = BlockWeights;
using O = OuterWeights;

// modeling_llama.py / modeling_qwen2.py / modeling_qwen3.py
WeightLayout llamaLayout(const io::ModelConfig& c) {
  const int64_t d = c.hiddenSize, q = c.numHeads * c.headDim, kv = c.numKeyValueHeads * c.headDim;
  const int64_t ff = c.intermediateSize;
  WeightLayout layout;
  layout.blockPrefix = "model.layers.";
  auto& s = layout.blockSlots;
  s = {{&B::attnNorm, "input_layernorm.weight", {d}},
       {&B::q, "self_attn.q_proj.weight", {q, d}},
       {&B::k, "self_attn.k_proj.weight", {kv, d}},
       {&B::v, "self_attn.v_proj.weight", {kv, d}},
       {&B::out, "self_attn.o_proj.weight", {d, q}},
       {&B::mlpNorm, "post_attention_layernorm.weight", {d}},
       {&B::gate, "mlp.gate_proj.weight", {ff, d}},
       {&B::up, "mlp.up_proj.weight", {ff, d}},
       {&B::down, "mlp.down_proj.weight", {d, ff}}};
  if (c.attentionBias) {
    s.push_back({&B::qBias, "self_attn.q_proj.bias", {q}});
    s.push_back({&B::kBias, "self_attn.k_proj.bias", {kv}});
    s.push_back({&B::vBias, "self_attn.v_proj.bias", {kv}});
    // Llama's attention_bias also puts a bias on o_proj; Qwen2's o_proj never has one.
    if (c.architecture == io::Architecture::Llama)
      s.push_back({&B::outBias, "self_attn.o_proj.bias", {d}});
  }
  if (c.qkNorm) {
    s.push_back({&B::qNorm, "self_attn.q_norm.weight", {c.headDim}});
    s.push_back({&B::kNorm, "self_attn.k_norm.weight", {c.headDim}});
  }
  // Llama's mlp_bias is not part of ModelConfig: use the biases when the checkpoint has them.
  s.push_back({&B::gateBias, "mlp.gate_proj.bias", {ff}, false});
  s.push_back({&B::upBias, "mlp.up_proj.bias", {ff}, false});
  s.push_back({&B::downBias, "mlp.down_proj.bias", {d}, false});

  layout.outerSlots = {{&O::tokens, "model.embed_tokens.weight", {c.vocabSize, d}},
                       {&O::finalNorm, "model.norm.weight", {d}}};
  layout.tiedHead = c.tieWordEmbeddings;
  if (layout.tiedHead)
    layout.ignoredSuffixes.push_back("lm_head.weight");
  else
    layout.outerSlots.push_back({&O::head, "lm_head.weight", {c.vocabSize, d}});
  layout.ignoredSuffixes.push_back(".rotary_emb.inv_freq");
  return layout;
}

// modeling_gpt2.py: Conv1D weights are [in, out].
WeightLayout gpt2Layout(const io::ModelConfig& c,
                        const std::function<bool(const std::string&)>& hasTensor,
                        const std::filesystem::path& source) {
  std::string prefix;
  if (hasTensor("transformer.wte.weight")) {
    prefix = "transformer.";
  } else if (!hasTensor("wte.weight")) {
    throw FormatError(source, "the GPT-2 token embedding is missing", "transformer.wte.weight");
  }
  const int64_t d = c.hiddenSize, ff = c.intermediateSize;
  WeightLayout layout;
  layout.blockPrefix = prefix + "h.";
  layout.blockSlots = {
      {&B::attnNorm, "ln_1.weight", {d}},          {&B::attnNormBias, "ln_1.bias", {d}},
      {&B::qkv, "attn.c_attn.weight", {d, 3 * d}}, {&B::qkvBias, "attn.c_attn.bias", {3 * d}},
      {&B::out, "attn.c_proj.weight", {d, d}},     {&B::outBias, "attn.c_proj.bias", {d}},
      {&B::mlpNorm, "ln_2.weight", {d}},           {&B::mlpNormBias, "ln_2.bias", {d}},
      {&B::up, "mlp.c_fc.weight", {d, ff}},        {&B::upBias, "mlp.c_fc.bias", {ff}},
      {&B::down, "mlp.c_proj.weight", {ff, d}},    {&B::downBias, "mlp.c_proj.bias", {d}}};
  layout.outerSlots = {{&O::tokens, prefix + "wte.weight", {c.vocabSize, d}},
                       {&O::positions, prefix + "wpe.weight", {c.maxPositions, d}},
                       {&O::finalNorm, prefix + "ln_f.weight", {d}},
                       {&O::finalNormBias, prefix + "ln_f.bias", {d}}};
  layout.tiedHead = c.tieWordEmbeddings;
  if (layout.tiedHead)
    layout.ignoredSuffixes.push_back("lm_head.weight");
  else
    layout.outerSlots.push_back({&O::head, "lm_head.weight", {c.vocabSize, d}});
  // Causal-mask buffers that older checkpoints serialised.
  layout.ignoredSuffixes.insert(layout.ignoredSuffixes.end(), {".attn.bias", ".attn.masked_bias"});
  return layout;
}

// modeling_gpt_neox.py
WeightLayout neoxLayout(const io::ModelConfig& c) {
  const int64_t d = c.hiddenSize, ff = c.intermediateSize;
  WeightLayout layout;
  layout.blockPrefix = "gpt_neox.layers.";
  auto& s = layout.blockSlots;
  s = {{&B::attnNorm, "input_layernorm.weight", {d}},
       {&B::attnNormBias, "input_layernorm.bias", {d}},
       {&B::qkv, "attention.query_key_value.weight", {3 * d, d}},
       {&B::out, "attention.dense.weight", {d, d}},
       {&B::mlpNorm, "post_attention_layernorm.weight", {d}},
       {&B::mlpNormBias, "post_attention_layernorm.bias", {d}},
       {&B::up, "mlp.dense_h_to_4h.weight", {ff, d}},
       {&B::upBias, "mlp.dense_h_to_4h.bias", {ff}},
       {&B::down, "mlp.dense_4h_to_h.weight", {d, ff}},
       {&B::downBias, "mlp.dense_4h_to_h.bias", {d}}};
  if (c.attentionBias) {
    s.push_back({&B::qkvBias, "attention.query_key_value.bias", {3 * d}});
    s.push_back({&B::outBias, "attention.dense.bias", {d}});
  }
  layout.outerSlots = {{&O::tokens, "gpt_neox.embed_in.weight", {c.vocabSize, d}},
                       {&O::finalNorm, "gpt_neox.final_layer_norm.weight", {d}},
                       {&O::finalNormBias, "gpt_neox.final_layer_norm.bias", {d}}};
  layout.tiedHead = c.tieWordEmbeddings;
  if (layout.tiedHead)
    layout.ignoredSuffixes.push_back("embed_out.weight");
  else
    layout.outerSlots.push_back({&O::head, "embed_out.weight", {c.vocabSize, d}});
  layout.ignoredSuffixes.insert(
      layout.ignoredSuffixes.end(),
      {".attention.bias", ".attention.masked_bias", ".rotary_emb.inv_freq"});
  return layout;
}

// modeling_gemma3.py (Gemma3ForCausalLM): Llama's names, q/k norms, and the norms after
// attention and after the MLP; post_attention_layernorm is one of those, not the MLP's input norm.
WeightLayout gemma3Layout(const io::ModelConfig& c) {
  const int64_t d = c.hiddenSize, q = c.numHeads * c.headDim, kv = c.numKeyValueHeads * c.headDim;
  const int64_t ff = c.intermediateSize;
  WeightLayout layout;
  layout.blockPrefix = "model.layers.";
  auto& s = layout.blockSlots;
  s = {{&B::attnNorm, "input_layernorm.weight", {d}},
       {&B::q, "self_attn.q_proj.weight", {q, d}},
       {&B::k, "self_attn.k_proj.weight", {kv, d}},
       {&B::v, "self_attn.v_proj.weight", {kv, d}},
       {&B::qNorm, "self_attn.q_norm.weight", {c.headDim}},
       {&B::kNorm, "self_attn.k_norm.weight", {c.headDim}},
       {&B::out, "self_attn.o_proj.weight", {d, q}},
       {&B::attnOutNorm, "post_attention_layernorm.weight", {d}},
       {&B::mlpNorm, "pre_feedforward_layernorm.weight", {d}},
       {&B::gate, "mlp.gate_proj.weight", {ff, d}},
       {&B::up, "mlp.up_proj.weight", {ff, d}},
       {&B::down, "mlp.down_proj.weight", {d, ff}},
       {&B::mlpOutNorm, "post_feedforward_layernorm.weight", {d}}};
  if (c.attentionBias) {  // Gemma3Attention: attention_bias puts a bias on all four
    s.push_back({&B::qBias, "self_attn.q_proj.bias", {q}});
    s.push_back({&B::kBias, "self_attn.k_proj.bias", {kv}});
    s.push_back({&B::vBias, "self_attn.v_proj.bias", {kv}});
    s.push_back({&B::outBias, "self_attn.o_proj.bias", {d}});
  }
  layout.outerSlots = {{&O::tokens, "model.embed_tokens.weight", {c.vocabSize, d}},
                       {&O::finalNorm, "model.norm.weight", {d}}};
  layout.tiedHead = c.tieWordEmbeddings;
  if (layout.tiedHead)
    layout.ignoredSuffixes.push_back("lm_head.weight");
  else
    layout.outerSlots.push_back({&O::head, "lm_head.weight", {c.vocabSize, d}});
  return layout;
}

}  // namespace

std::string WeightLayout::outerName(at::Tensor OuterWeights::*field) const {
  if (tiedHead && field == &OuterWeights::head) field = &OuterWeights::tokens;
  for (const OuterSlot& slot : outerSlots)
    if (slot.field == field) return slot.name;
  return {};
}

WeightLayout weightLayoutOf(const io::ModelConfig& config,
                            const std::function<bool(const std::string&)>& hasTensor,
                            const std::filesystem::path& source) {
  switch (config.architecture) {
    case io::Architecture::Llama:
    case io::Architecture::Qwen2:
    case io::Architecture::Qwen3:
      return llamaLayout(config);
    case io::Architecture::Gpt2:
      return gpt2Layout(config, hasTensor, source);
    case io::Architecture::GptNeoX:
      return neoxLayout(config);
    case io::Architecture::Gemma3:
      return gemma3Layout(config);
  }
  throw std::logic_error("weightLayoutOf: unknown architecture");
}

}  // namespace strata::model
