// How a GGUF model becomes a Hugging Face folder (core/io/gguf_model_plan.h, gguf_import.h):
// config.json from the metadata, tensor names, llama.cpp's q/k row permutation undone, Gemma's
// norm offset removed, and errors naming the key or tensor. The real models are checked end to
// end against transformers in gguf_import_reference_test.cpp; these pin each rule on its own.

#include "io/gguf_model_plan.h"

#include <gtest/gtest.h>

#include <cstring>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "io/gguf_file.h"
#include "io/gguf_import.h"
#include "io/safetensors_file.h"
#include "support/gguf_test_file.h"
#include "support/temp_dir.h"
#include "support/tiny_gguf_model.h"

namespace strata::io {

namespace {

using namespace strata::testing;

/** A Qwen2- or Gemma-3-shaped file with every tensor in F32 (values i / 1000). */
GgufTestFile smallModel(const std::string& arch) {
  constexpr int64_t width = 8, heads = 2, kv = 1, headDim = 4, ffn = 16, vocab = 6;
  GgufTestFile f;
  f.set("general.architecture", ggufString(arch))
      .set(arch + ".block_count", ggufUInt32(1))
      .set(arch + ".context_length", ggufUInt32(32))
      .set(arch + ".embedding_length", ggufUInt32(width))
      .set(arch + ".feed_forward_length", ggufUInt32(ffn))
      .set(arch + ".attention.head_count", ggufUInt32(heads))
      .set(arch + ".attention.head_count_kv", ggufUInt32(kv))
      .set(arch + ".attention.layer_norm_rms_epsilon", ggufFloat32(1e-6f))
      .set(arch + ".rope.freq_base", ggufFloat32(1e6f))
      .set(arch + ".vocab_size", ggufUInt32(vocab));
  if (arch == "gemma3")  // with a tokenizer of its vocabulary: the import test writes one
    f.set("gemma3.attention.key_length", ggufUInt32(headDim))
        .set("gemma3.attention.sliding_window", ggufUInt32(4))
        .set("tokenizer.ggml.model", ggufString("llama"))
        .set("tokenizer.ggml.tokens",
             ggufStringArray({"<pad>", "<eos>", "<bos>", "<unk>", "\xe2\x96\x81", "a"}))
        .set("tokenizer.ggml.token_type", ggufInt32Array({3, 3, 3, 2, 1, 1}))
        .set("tokenizer.ggml.scores", ggufFloat32Array({0, 0, 0, 0, -1, -2}))
        .set("tokenizer.ggml.bos_token_id", ggufUInt32(2))
        .set("tokenizer.ggml.eos_token_id", ggufUInt32(1))
        .set("tokenizer.ggml.unknown_token_id", ggufUInt32(3));
  auto add = [&](const std::string& name, std::vector<int64_t> dims) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    std::vector<float> v(n);
    for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(i) / 1000.0f;
    f.addF32Tensor(name, dims, v);
  };
  add("token_embd.weight", {width, vocab});
  add("blk.0.attn_norm.weight", {width});
  add("blk.0.attn_q.weight", {width, heads * headDim});
  add("blk.0.attn_k.weight", {width, kv * headDim});
  add("blk.0.attn_v.weight", {width, kv * headDim});
  add("blk.0.attn_output.weight", {heads * headDim, width});
  add("blk.0.ffn_gate.weight", {width, ffn});
  add("blk.0.ffn_up.weight", {width, ffn});
  add("blk.0.ffn_down.weight", {ffn, width});
  add("blk.0.ffn_norm.weight", {width});
  add("output_norm.weight", {width});
  if (arch == "qwen2") {
    add("blk.0.attn_q.bias", {heads * headDim});
    add("blk.0.attn_k.bias", {kv * headDim});
    add("blk.0.attn_v.bias", {kv * headDim});
  } else {
    add("blk.0.attn_q_norm.weight", {headDim});
    add("blk.0.attn_k_norm.weight", {headDim});
    add("blk.0.post_attention_norm.weight", {width});
    add("blk.0.post_ffw_norm.weight", {width});
  }
  return f;
}

class GgufModelPlanTest : public ::testing::Test {
 protected:
  std::filesystem::path write(const GgufTestFile& f, const std::string& name = "m.gguf") {
    const auto path = m_dir.path() / name;
    f.write(path);
    return path;
  }
  TempDir m_dir;
};

const GgufTensorPlan& planOf(const GgufModelPlan& plan, const std::string& hfName) {
  for (const GgufTensorPlan& t : plan.tensors)
    if (t.hfName == hfName) return t;
  throw std::runtime_error("no tensor " + hfName);
}

TEST_F(GgufModelPlanTest, Qwen2KeepsItsBiasesAndIsNotPermuted) {
  const GgufFile gguf(write(smallModel("qwen2")));
  const GgufModelPlan plan = planGgufModel(gguf);
  const auto config = nlohmann::json::parse(plan.configJson);
  EXPECT_EQ(config["architectures"][0], "Qwen2ForCausalLM");
  EXPECT_EQ(config["attention_bias"], true);
  EXPECT_EQ(config["rope_theta"], 1e6);
  EXPECT_EQ(config["tie_word_embeddings"], true);  // no output.weight in the file
  EXPECT_EQ(planOf(plan, "model.layers.0.self_attn.k_proj.bias").ggufName, "blk.0.attn_k.bias");
  EXPECT_EQ(planOf(plan, "model.layers.0.self_attn.q_proj.weight").fix, GgufTensorFix::None);
}

TEST_F(GgufModelPlanTest, Gemma3SubtractsTheNormOffsetAndHasItsLayerPattern) {
  const GgufFile gguf(write(smallModel("gemma3")));
  const GgufModelPlan plan = planGgufModel(gguf);
  const auto config = nlohmann::json::parse(plan.configJson);
  EXPECT_EQ(config["model_type"], "gemma3_text");
  EXPECT_EQ(config["head_dim"], 4);
  EXPECT_EQ(config["sliding_window"], 4);
  EXPECT_EQ(config["query_pre_attn_scalar"], 4);  // llama.cpp: head_dim (below 62 layers)
  EXPECT_EQ(config["layer_types"], nlohmann::json::array({"sliding_attention"}));
  EXPECT_EQ(config["rope_parameters"]["sliding_attention"]["rope_theta"], 10000.0);
  EXPECT_EQ(planOf(plan, "model.layers.0.pre_feedforward_layernorm.weight").ggufName,
            "blk.0.ffn_norm.weight");
  for (const char* norm : {"model.norm.weight", "model.layers.0.self_attn.q_norm.weight",
                           "model.layers.0.post_feedforward_layernorm.weight"})
    EXPECT_EQ(planOf(plan, norm).fix, GgufTensorFix::SubtractOne) << norm;
  EXPECT_EQ(planOf(plan, "model.layers.0.mlp.up_proj.weight").fix, GgufTensorFix::None);

  // The import writes w − 1 for every norm (in float32), as transformers does.
  const auto folder = m_dir.path() / "gemma";
  importGguf(m_dir.path() / "m.gguf", folder);
  const auto file = SafetensorsFile::open(folder / "model.safetensors");
  float second = 0;
  std::memcpy(&second, file->bytes(file->at("model.norm.weight")).data() + 4, sizeof second);
  EXPECT_EQ(second, 0.001f - 1.0f);
}

TEST_F(GgufModelPlanTest, LlamaQueryAndKeyRowsGoBackToHuggingFaceOrder) {
  // Within each head llama.cpp interleaves the two rotary halves: row 2i+j of a head holds
  // Hugging Face's row j·(head_dim/2)+i. The tiny model's q has 2 heads of 16 rows.
  const auto gguf = m_dir.path() / "tiny.gguf";
  writeTinyLlamaGguf(gguf);
  const GgufFile file(gguf);
  const GgufModelPlan plan = planGgufModel(file);
  EXPECT_EQ(planOf(plan, "model.layers.0.self_attn.q_proj.weight").heads, 2);
  EXPECT_EQ(planOf(plan, "model.layers.0.self_attn.k_proj.weight").heads, 1);
  importGguf(gguf, m_dir.path() / "tiny");
  const auto out = SafetensorsFile::open(m_dir.path() / "tiny" / "model.safetensors");
  const auto& stored = *file.findTensor("blk.0.attn_q.weight");
  const auto in = file.tensorData(stored);
  const auto written = out->bytes(out->at("model.layers.0.self_attn.q_proj.weight"));
  constexpr int64_t cols = 32, half = 8;
  for (int64_t h = 0; h < 2; ++h)
    for (int64_t i = 0; i < half; ++i)
      for (int64_t j = 0; j < 2; ++j) {
        const int64_t from = h * 2 * half + i * 2 + j, to = h * 2 * half + j * half + i;
        EXPECT_EQ(
            std::memcmp(written.data() + to * cols * 4, in.data() + from * cols * 4, cols * 4), 0)
            << "head " << h << " row " << from << " → " << to;
      }
}

TEST_F(GgufModelPlanTest, ErrorsNameTheArchitectureTheKeyAndTheTensor) {
  GgufTestFile phi = smallModel("qwen2");
  phi.set("general.architecture", ggufString("phi3"));
  try {
    planGgufModel(GgufFile(write(phi, "phi.gguf")));
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("'phi3' is not supported"), std::string::npos) << e.what();
  }
  GgufTestFile noLayers = smallModel("qwen2");
  noLayers.set("qwen2.block_count", ggufString("one"));
  try {
    planGgufModel(GgufFile(write(noLayers, "keys.gguf")));
    FAIL();
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("key 'qwen2.block_count'"), std::string::npos) << e.what();
  }
  GgufTestFile wide = smallModel("qwen2");
  wide.set("qwen2.feed_forward_length", ggufUInt32(32));
  try {
    planGgufModel(GgufFile(write(wide, "shape.gguf")));
    FAIL();
  } catch (const FormatError& e) {
    EXPECT_NE(
        std::string(e.what()).find("tensor 'blk.0.ffn_gate.weight': has shape [16, 8] but the "
                                   "metadata implies [32, 8]"),
        std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace strata::io
