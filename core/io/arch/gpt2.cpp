// GPT-2 (modeling_gpt2.py; model/backbone/gpt2_block.cpp): pre-LayerNorm, fused Conv1D
// c_attn, learned positions. Everything Strata knows of it but the block function
// (architecture_spec.h); Strata reads no GGUF file of it.

#include "common/error.h"
#include "io/arch/architecture_spec.h"
#include "io/hf/config_fields.h"

namespace strata::io {

namespace {

using BT = BlockTensor;
using OT = OuterTensor;

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

// modeling_gpt2.py: Conv1D weights are [in, out].
TensorLayout gpt2Layout(const ModelConfig& c, const HasTensor& hasTensor,
                        const std::filesystem::path& source) {
  std::string prefix;
  if (hasTensor("transformer.wte.weight")) {
    prefix = "transformer.";
  } else if (!hasTensor("wte.weight")) {
    throw FormatError(source, "the GPT-2 token embedding is missing", "transformer.wte.weight");
  }
  const int64_t d = c.hiddenSize, ff = c.intermediateSize;
  TensorLayout layout;
  layout.blockPrefix = prefix + "h.";
  layout.blockSlots = {
      {BT::AttnNorm, "ln_1.weight", {d}},          {BT::AttnNormBias, "ln_1.bias", {d}},
      {BT::Qkv, "attn.c_attn.weight", {d, 3 * d}}, {BT::QkvBias, "attn.c_attn.bias", {3 * d}},
      {BT::Out, "attn.c_proj.weight", {d, d}},     {BT::OutBias, "attn.c_proj.bias", {d}},
      {BT::MlpNorm, "ln_2.weight", {d}},           {BT::MlpNormBias, "ln_2.bias", {d}},
      {BT::Up, "mlp.c_fc.weight", {d, ff}},        {BT::UpBias, "mlp.c_fc.bias", {ff}},
      {BT::Down, "mlp.c_proj.weight", {ff, d}},    {BT::DownBias, "mlp.c_proj.bias", {d}}};
  layout.outerSlots = {{OT::Tokens, prefix + "wte.weight", {c.vocabSize, d}},
                       {OT::Positions, prefix + "wpe.weight", {c.maxPositions, d}},
                       {OT::FinalNorm, prefix + "ln_f.weight", {d}},
                       {OT::FinalNormBias, prefix + "ln_f.bias", {d}}};
  layout.tiedHead = c.tieWordEmbeddings;
  if (layout.tiedHead)
    layout.ignoredSuffixes.push_back("lm_head.weight");
  else
    layout.outerSlots.push_back({OT::Head, "lm_head.weight", {c.vocabSize, d}});
  // Causal-mask buffers that older checkpoints serialised.
  layout.ignoredSuffixes.insert(layout.ignoredSuffixes.end(), {".attn.bias", ".attn.masked_bias"});
  return layout;
}

}  // namespace

extern const ArchitectureSpec kGpt2Architecture{
    .className = "GPT2LMHeadModel",
    .readConfig = readGpt2,
    .tensors = gpt2Layout,
};

}  // namespace strata::io
