#include "support/tiny_model_folder.h"

#include <deque>
#include <fstream>
#include <vector>

#include "io/hf/safetensors_writer.h"

namespace strata::testing {
namespace {

struct Tensor {
  std::string name;
  std::vector<int64_t> shape;
};

std::vector<Tensor> tinyLlamaTensors(const TinyLlamaShape& s) {
  const int64_t headDim = s.hidden / s.heads;
  std::vector<Tensor> tensors{{"model.embed_tokens.weight", {s.vocab, s.hidden}},
                              {"model.norm.weight", {s.hidden}}};
  if (!s.tied) tensors.push_back({"lm_head.weight", {s.vocab, s.hidden}});
  for (int64_t layer = 0; layer < s.layers; ++layer) {
    const std::string p = "model.layers." + std::to_string(layer) + ".";
    tensors.push_back({p + "input_layernorm.weight", {s.hidden}});
    tensors.push_back({p + "post_attention_layernorm.weight", {s.hidden}});
    tensors.push_back({p + "self_attn.q_proj.weight", {s.heads * headDim, s.hidden}});
    tensors.push_back({p + "self_attn.k_proj.weight", {s.kvHeads * headDim, s.hidden}});
    tensors.push_back({p + "self_attn.v_proj.weight", {s.kvHeads * headDim, s.hidden}});
    tensors.push_back({p + "self_attn.o_proj.weight", {s.hidden, s.heads * headDim}});
    tensors.push_back({p + "mlp.gate_proj.weight", {s.mlp, s.hidden}});
    tensors.push_back({p + "mlp.up_proj.weight", {s.mlp, s.hidden}});
    tensors.push_back({p + "mlp.down_proj.weight", {s.hidden, s.mlp}});
  }
  return tensors;
}

int64_t numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t dim : shape) n *= dim;
  return n;
}

}  // namespace

int64_t tinyLlamaParameterCount(const TinyLlamaShape& shape) {
  int64_t total = 0;
  for (const auto& tensor : tinyLlamaTensors(shape)) total += numel(tensor.shape);
  return total;
}

void writeTinyLlamaFolder(const std::filesystem::path& folder, const TinyLlamaShape& s) {
  std::filesystem::create_directories(folder);
  std::ofstream(folder / "config.json")
      << R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": )"
      << s.vocab << R"(, "hidden_size": )" << s.hidden << R"(, "num_hidden_layers": )" << s.layers
      << R"(, "num_attention_heads": )" << s.heads << R"(, "num_key_value_heads": )" << s.kvHeads
      << R"(, "intermediate_size": )" << s.mlp << R"(, "max_position_embeddings": 128,)"
      << R"( "tie_word_embeddings": )" << (s.tied ? "true" : "false") << "}\n";
  std::ofstream(folder / "tokenizer.json")
      << R"({"model": {"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": []},)"
      << R"( "pre_tokenizer": {"type": "ByteLevel"}})"
      << "\n";

  // Norm weights in BF16, everything else F32: inspect must report both dtypes.
  io::SafetensorsWriter writer;
  std::deque<std::vector<std::byte>> buffers;  // the writer references data until write()
  for (const auto& tensor : tinyLlamaTensors(s)) {
    const bool norm = tensor.name.find("norm") != std::string::npos;
    const io::DType dtype = norm ? io::DType::BF16 : io::DType::F32;
    buffers.emplace_back(static_cast<std::size_t>(numel(tensor.shape)) * io::dtypeSize(dtype));
    writer.add(tensor.name, dtype, tensor.shape, buffers.back());
  }
  writer.write(folder / "model.safetensors");
}

}  // namespace strata::testing
