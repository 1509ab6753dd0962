#include "io/gguf_model_plan.h"

#include <nlohmann/json.hpp>
#include <set>

#include "common/error.h"

namespace strata::io {

namespace {

using Json = nlohmann::ordered_json;

/** The hyper-parameters every supported architecture has, read from `<arch>.*` keys with the
 *  names transformers' GGUF_CONFIG_MAPPING gives them. */
struct Hyper {
  std::string arch;
  int64_t layers = 0, width = 0, ffn = 0, heads = 0, kvHeads = 0, headDim = 0, context = 0;
  int64_t vocab = 0;
  double eps = 0, ropeTheta = 10000.0;
  bool tied = true;
};

int64_t positive(const GgufFile& gguf, const std::string& key) {
  const int64_t value = gguf.integer(key);
  if (value <= 0 || value > (int64_t{1} << 31))
    throw FormatError(gguf.path(), "must be a positive count, not " + std::to_string(value), key,
                      "key");
  return value;
}

Hyper readHyper(const GgufFile& gguf, const std::string& arch) {
  const std::string p = arch + ".";
  Hyper h;
  h.arch = arch;
  h.layers = positive(gguf, p + "block_count");
  h.width = positive(gguf, p + "embedding_length");
  h.ffn = positive(gguf, p + "feed_forward_length");
  h.heads = positive(gguf, p + "attention.head_count");
  h.kvHeads = gguf.has(p + "attention.head_count_kv")
                  ? positive(gguf, p + "attention.head_count_kv")
                  : h.heads;
  h.context = positive(gguf, p + "context_length");
  h.eps = gguf.number(p + "attention.layer_norm_rms_epsilon");
  if (!(h.eps > 0))
    throw FormatError(gguf.path(), "must be positive", p + "attention.layer_norm_rms_epsilon",
                      "key");
  if (gguf.has(p + "rope.freq_base")) h.ropeTheta = gguf.number(p + "rope.freq_base");
  // transformers: vocab_size from the key, else the tokenizer's token count.
  if (gguf.has(p + "vocab_size"))
    h.vocab = positive(gguf, p + "vocab_size");
  else if (gguf.has("tokenizer.ggml.tokens"))
    h.vocab = static_cast<int64_t>(gguf.stringArray("tokenizer.ggml.tokens").size());
  else
    throw FormatError(gguf.path(), "is missing (and there is no tokenizer.ggml.tokens to count)",
                      p + "vocab_size", "key");
  if (h.heads % h.kvHeads != 0)
    throw FormatError(gguf.path(),
                      std::to_string(h.heads) + " query heads are not a multiple of " +
                          std::to_string(h.kvHeads) + " key/value heads",
                      p + "attention.head_count_kv", "key");
  // Tied unless the file has its own output matrix (transformers' rule).
  h.tied = gguf.findTensor("output.weight") == nullptr;
  return h;
}

void putTokenIds(const GgufFile& gguf, Json& config) {
  for (const auto& [key, field] : {std::pair{"tokenizer.ggml.bos_token_id", "bos_token_id"},
                                   std::pair{"tokenizer.ggml.eos_token_id", "eos_token_id"},
                                   std::pair{"tokenizer.ggml.padding_token_id", "pad_token_id"}})
    if (gguf.has(key)) config[field] = gguf.integer(key);
}

Json commonConfig(const GgufFile& gguf, const Hyper& h, const std::string& className,
                  const std::string& modelType) {
  Json c;
  c["architectures"] = {className};
  c["model_type"] = modelType;
  c["vocab_size"] = h.vocab;
  c["hidden_size"] = h.width;
  c["intermediate_size"] = h.ffn;
  c["num_hidden_layers"] = h.layers;
  c["num_attention_heads"] = h.heads;
  c["num_key_value_heads"] = h.kvHeads;
  c["head_dim"] = h.headDim;
  c["max_position_embeddings"] = h.context;
  c["rms_norm_eps"] = h.eps;
  c["tie_word_embeddings"] = h.tied;
  putTokenIds(gguf, c);
  c["torch_dtype"] = "float32";
  return c;
}

/** Tensor names of one llama.cpp block and their Hugging Face names (the gguf-py name map). */
struct BlockName {
  const char* gguf;
  const char* hf;
  bool required;
};

const std::vector<BlockName>& llamaBlockNames() {
  static const std::vector<BlockName> names = {
      {"attn_norm.weight", "input_layernorm.weight", true},
      {"attn_q.weight", "self_attn.q_proj.weight", true},
      {"attn_k.weight", "self_attn.k_proj.weight", true},
      {"attn_v.weight", "self_attn.v_proj.weight", true},
      {"attn_q.bias", "self_attn.q_proj.bias", false},
      {"attn_k.bias", "self_attn.k_proj.bias", false},
      {"attn_v.bias", "self_attn.v_proj.bias", false},
      {"attn_output.weight", "self_attn.o_proj.weight", true},
      {"ffn_norm.weight", "post_attention_layernorm.weight", true},
      {"ffn_gate.weight", "mlp.gate_proj.weight", true},
      {"ffn_up.weight", "mlp.up_proj.weight", true},
      {"ffn_down.weight", "mlp.down_proj.weight", true},
  };
  return names;
}

const std::vector<BlockName>& gemma3BlockNames() {
  static const std::vector<BlockName> names = {
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

/** The row-major shape a Hugging Face tensor must have, by its name. */
std::vector<int64_t> expectedShape(const std::string& hf, const Hyper& h) {
  const int64_t q = h.heads * h.headDim, kv = h.kvHeads * h.headDim;
  auto ends = [&](const std::string& s) {
    return hf.size() >= s.size() && hf.compare(hf.size() - s.size(), s.size(), s) == 0;
  };
  if (hf == "model.embed_tokens.weight" || hf == "lm_head.weight") return {h.vocab, h.width};
  if (ends("q_proj.weight")) return {q, h.width};
  if (ends("k_proj.weight") || ends("v_proj.weight")) return {kv, h.width};
  if (ends("q_proj.bias")) return {q};
  if (ends("k_proj.bias") || ends("v_proj.bias")) return {kv};
  if (ends("o_proj.weight")) return {h.width, q};
  if (ends("gate_proj.weight") || ends("up_proj.weight")) return {h.ffn, h.width};
  if (ends("down_proj.weight")) return {h.width, h.ffn};
  if (ends("q_norm.weight") || ends("k_norm.weight")) return {h.headDim};
  return {h.width};  // every other norm
}

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    text.append(i ? ", " : "").append(std::to_string(shape[i]));
  return text + "]";
}

void addTensors(const GgufFile& gguf, const Hyper& h, const std::vector<BlockName>& blockNames,
                GgufModelPlan& plan) {
  const bool gemma = h.arch == "gemma3";
  std::set<std::string> used;
  auto add = [&](const std::string& ggufName, const std::string& hf, bool required) {
    const GgufTensorInfo* t = gguf.findTensor(ggufName);
    if (!t) {
      if (required) throw FormatError(gguf.path(), "is missing", ggufName);
      return;
    }
    const auto expected = expectedShape(hf, h);
    if (t->shape != expected)
      throw FormatError(
          gguf.path(),
          "has shape " + shapeText(t->shape) + " but the metadata implies " + shapeText(expected),
          ggufName);
    GgufTensorPlan p{ggufName, hf, GgufTensorFix::None, 0};
    if (h.arch == "llama" && ggufName.ends_with("attn_q.weight"))
      p = {ggufName, hf, GgufTensorFix::UnpermuteRotaryRows, h.heads};
    else if (h.arch == "llama" && ggufName.ends_with("attn_k.weight"))
      p = {ggufName, hf, GgufTensorFix::UnpermuteRotaryRows, h.kvHeads};
    else if (gemma && ggufName.find("norm.weight") != std::string::npos)
      p.fix = GgufTensorFix::SubtractOne;
    plan.tensors.push_back(p);
    used.insert(ggufName);
  };
  add("token_embd.weight", "model.embed_tokens.weight", true);
  for (int64_t l = 0; l < h.layers; ++l) {
    const std::string block = "blk." + std::to_string(l) + ".";
    const std::string layer = "model.layers." + std::to_string(l) + ".";
    for (const BlockName& n : blockNames) add(block + n.gguf, layer + n.hf, n.required);
  }
  add("output_norm.weight", "model.norm.weight", true);
  if (!h.tied) add("output.weight", "lm_head.weight", true);
  for (const GgufTensorInfo& t : gguf.tensors())
    if (!used.count(t.name))
      plan.warnings.push_back("tensor '" + t.name + "' is not used by the " + h.arch +
                              " model (ignored, as transformers ignores it)");
}

GgufModelPlan planLlamaOrQwen2(const GgufFile& gguf, const std::string& arch) {
  Hyper h = readHyper(gguf, arch);
  if (h.width % h.heads != 0)
    throw FormatError(gguf.path(), "the width is not a multiple of the head count",
                      arch + ".attention.head_count", "key");
  h.headDim = h.width / h.heads;
  // transformers maps llama's rope.dimension_count to head_dim (qwen2 ignores it).
  if (arch == "llama" && gguf.has("llama.rope.dimension_count"))
    h.headDim = positive(gguf, "llama.rope.dimension_count");
  const bool qwen = arch == "qwen2";
  Json c = commonConfig(gguf, h, qwen ? "Qwen2ForCausalLM" : "LlamaForCausalLM", arch);
  c["hidden_act"] = "silu";
  c["rope_theta"] = h.ropeTheta;
  c["rope_parameters"] = {{"rope_theta", h.ropeTheta}, {"rope_type", "default"}};
  c["attention_bias"] = qwen;
  if (!qwen) c["mlp_bias"] = false;
  GgufModelPlan plan;
  plan.architecture = arch;
  plan.configJson = c.dump(2) + "\n";
  addTensors(gguf, h, llamaBlockNames(), plan);
  if (qwen)  // Qwen2 always has q/k/v biases; a file without them is not a Qwen2 model
    for (const char* bias : {"attn_q.bias", "attn_k.bias", "attn_v.bias"})
      if (!gguf.findTensor(std::string("blk.0.") + bias))
        throw FormatError(gguf.path(), "is missing (Qwen2 has q/k/v biases)",
                          std::string("blk.0.") + bias);
  return plan;
}

GgufModelPlan planGemma3(const GgufFile& gguf) {
  Hyper h = readHyper(gguf, "gemma3");
  h.headDim = gguf.has("gemma3.attention.key_length")
                  ? positive(gguf, "gemma3.attention.key_length")
                  : h.width / h.heads;
  Json c = commonConfig(gguf, h, "Gemma3ForCausalLM", "gemma3_text");
  c["hidden_activation"] = "gelu_pytorch_tanh";
  // GGUF carries neither the local RoPE base, the query scale nor the layer pattern; llama.cpp
  // (src/llama-model.cpp, LLM_ARCH_GEMMA3) fixes them: RoPE base 10000 on sliding layers, every
  // sixth layer global, queries scaled by 1/sqrt(head_dim) except in the 62-layer 27B model
  // (1/sqrt(width/heads)). transformers takes Gemma3TextConfig's defaults, the same for every
  // size but 27B (query_pre_attn_scalar 256).
  const double localTheta = 10000.0;
  c["rope_parameters"] = {
      {"sliding_attention", {{"rope_type", "default"}, {"rope_theta", localTheta}}},
      {"full_attention", {{"rope_type", "default"}, {"rope_theta", h.ropeTheta}}}};
  c["rope_theta"] = h.ropeTheta;
  c["rope_local_base_freq"] = localTheta;
  c["query_pre_attn_scalar"] = h.layers == 62 ? h.width / h.heads : h.headDim;
  c["sliding_window"] = gguf.has("gemma3.attention.sliding_window")
                            ? positive(gguf, "gemma3.attention.sliding_window")
                            : int64_t{4096};
  Json layerTypes = Json::array();
  for (int64_t l = 0; l < h.layers; ++l)
    layerTypes.push_back((l + 1) % 6 == 0 ? "full_attention" : "sliding_attention");
  c["layer_types"] = layerTypes;
  c["attention_bias"] = false;
  c["final_logit_softcapping"] = nullptr;
  c["attn_logit_softcapping"] = nullptr;
  GgufModelPlan plan;
  plan.architecture = "gemma3";
  plan.configJson = c.dump(2) + "\n";
  addTensors(gguf, h, gemma3BlockNames(), plan);
  return plan;
}

}  // namespace

std::string supportedGgufArchitectures() { return "llama, qwen2, gemma3"; }

GgufModelPlan planGgufModel(const GgufFile& gguf) {
  const std::string arch = gguf.string("general.architecture");
  GgufModelPlan plan;
  if (arch == "llama" || arch == "qwen2")
    plan = planLlamaOrQwen2(gguf, arch);
  else if (arch == "gemma3")
    plan = planGemma3(gguf);
  else
    throw ConfigError(gguf.path(), "general.architecture",
                      "'" + arch + "' is not supported (Strata reads GGUF models of " +
                          supportedGgufArchitectures() + ")");
  Json generation;
  putTokenIds(gguf, generation);
  plan.generationConfigJson = generation.dump(2) + "\n";
  return plan;
}

}  // namespace strata::io
