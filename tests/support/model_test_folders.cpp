#include "support/model_test_folders.h"

#include <ATen/ATen.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "model/backbone/safetensors_torch.h"

namespace strata::testing {
namespace {

using Shapes = std::vector<std::pair<std::string, std::vector<int64_t>>>;
constexpr int64_t d = kRandomHidden, L = kRandomLayers;

nlohmann::json llama(Shapes& shapes, int64_t V) {
  const int64_t heads = 4, kv = 2, hd = d / heads, ff = 24;
  shapes = {{"model.embed_tokens.weight", {V, d}},
            {"model.norm.weight", {d}},
            {"lm_head.weight", {V, d}}};
  for (int64_t l = 0; l < L; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    shapes.insert(shapes.end(), {{p + "input_layernorm.weight", {d}},
                                 {p + "self_attn.q_proj.weight", {heads * hd, d}},
                                 {p + "self_attn.k_proj.weight", {kv * hd, d}},
                                 {p + "self_attn.v_proj.weight", {kv * hd, d}},
                                 {p + "self_attn.o_proj.weight", {d, heads * hd}},
                                 {p + "post_attention_layernorm.weight", {d}},
                                 {p + "mlp.gate_proj.weight", {ff, d}},
                                 {p + "mlp.up_proj.weight", {ff, d}},
                                 {p + "mlp.down_proj.weight", {d, ff}}});
  }
  return {{"architectures", {"LlamaForCausalLM"}},
          {"model_type", "llama"},
          {"vocab_size", V},
          {"hidden_size", d},
          {"intermediate_size", ff},
          {"num_hidden_layers", L},
          {"num_attention_heads", heads},
          {"num_key_value_heads", kv},
          {"rms_norm_eps", 1e-5},
          {"max_position_embeddings", 64},
          {"tie_word_embeddings", false}};
}

nlohmann::json gpt2(Shapes& shapes, int64_t V) {
  const int64_t positions = 24;
  shapes = {{"transformer.wte.weight", {V, d}},
            {"transformer.wpe.weight", {positions, d}},
            {"transformer.ln_f.weight", {d}},
            {"transformer.ln_f.bias", {d}}};
  for (int64_t l = 0; l < L; ++l) {
    const std::string p = "transformer.h." + std::to_string(l) + ".";
    shapes.insert(shapes.end(), {{p + "ln_1.weight", {d}},
                                 {p + "ln_1.bias", {d}},
                                 {p + "attn.c_attn.weight", {d, 3 * d}},
                                 {p + "attn.c_attn.bias", {3 * d}},
                                 {p + "attn.c_proj.weight", {d, d}},
                                 {p + "attn.c_proj.bias", {d}},
                                 {p + "ln_2.weight", {d}},
                                 {p + "ln_2.bias", {d}},
                                 {p + "mlp.c_fc.weight", {d, 4 * d}},
                                 {p + "mlp.c_fc.bias", {4 * d}},
                                 {p + "mlp.c_proj.weight", {4 * d, d}},
                                 {p + "mlp.c_proj.bias", {d}}});
  }
  return {{"architectures", {"GPT2LMHeadModel"}},
          {"model_type", "gpt2"},
          {"vocab_size", V},
          {"n_embd", d},
          {"n_layer", L},
          {"n_head", 2},
          {"n_positions", positions}};
}

nlohmann::json neox(Shapes& shapes, int64_t V) {
  const int64_t ff = 32;
  shapes = {{"gpt_neox.embed_in.weight", {V, d}},
            {"gpt_neox.final_layer_norm.weight", {d}},
            {"gpt_neox.final_layer_norm.bias", {d}},
            {"embed_out.weight", {V, d}}};
  for (int64_t l = 0; l < L; ++l) {
    // Appended, not "literal" + temporary: GCC 12 warns a false out-of-bounds read there.
    std::string p = "gpt_neox.layers.";
    p += std::to_string(l) + ".";
    shapes.insert(shapes.end(), {{p + "input_layernorm.weight", {d}},
                                 {p + "input_layernorm.bias", {d}},
                                 {p + "post_attention_layernorm.weight", {d}},
                                 {p + "post_attention_layernorm.bias", {d}},
                                 {p + "attention.query_key_value.weight", {3 * d, d}},
                                 {p + "attention.query_key_value.bias", {3 * d}},
                                 {p + "attention.dense.weight", {d, d}},
                                 {p + "attention.dense.bias", {d}},
                                 {p + "mlp.dense_h_to_4h.weight", {ff, d}},
                                 {p + "mlp.dense_h_to_4h.bias", {ff}},
                                 {p + "mlp.dense_4h_to_h.weight", {d, ff}},
                                 {p + "mlp.dense_4h_to_h.bias", {d}}});
  }
  return {{"architectures", {"GPTNeoXForCausalLM"}},
          {"model_type", "gpt_neox"},
          {"vocab_size", V},
          {"hidden_size", d},
          {"intermediate_size", ff},
          {"num_hidden_layers", L},
          {"num_attention_heads", 2},
          {"rotary_pct", 0.5},
          {"use_parallel_residual", true},
          {"max_position_embeddings", 64},
          {"hidden_act", "gelu"}};
}

}  // namespace

void writeRandomBackbone(const std::filesystem::path& folder, const RandomBackboneSpec& spec) {
  Shapes shapes;
  nlohmann::json config;
  switch (spec.architecture) {
    case io::Architecture::Gpt2:
      config = gpt2(shapes, spec.vocab);
      break;
    case io::Architecture::GptNeoX:
      config = neox(shapes, spec.vocab);
      break;
    default:
      config = llama(shapes, spec.vocab);
  }
  std::filesystem::create_directories(folder);
  std::ofstream(folder / "config.json") << config.dump(2);

  at::Generator generator = at::detail::createCPUGenerator(spec.seed);
  model::NamedTensors tensors;
  for (const auto& [name, shape] : shapes) {
    at::Tensor value =
        shape.size() == 1
            ? 1.0 + 0.1 * at::randn(shape, generator, at::kFloat)  // norms, biases
            : at::randn(shape, generator, at::kFloat) / std::sqrt(double(shape.back()));
    if (name == spec.dropTensor) continue;
    if (name == spec.transposeTensor) value = value.t().contiguous();
    if (name == spec.nanTensor) value.view({-1})[0] = std::nan("");
    tensors.emplace_back(name, value.to(spec.dtype));
  }
  if (!spec.extraTensor.empty()) tensors.emplace_back(spec.extraTensor, at::zeros({2}, spec.dtype));
  if (spec.maxShardBytes > 0)
    model::writeShardedSafetensors(folder, tensors, spec.maxShardBytes);
  else
    model::writeSafetensors(folder / "model.safetensors", tensors);
}

}  // namespace strata::testing
