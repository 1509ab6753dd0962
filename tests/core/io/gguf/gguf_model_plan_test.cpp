// How a GGUF model becomes a Hugging Face folder (core/io/gguf/gguf_model_plan.h, gguf_import.h):
// config.json from the metadata, tensor names, llama.cpp's q/k row permutation undone, Gemma's
// norm offset removed, and errors naming the key or tensor. The real models are checked end to
// end against transformers in gguf_import_reference_test.cpp; these pin each rule on its own.

#include "io/gguf/gguf_model_plan.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <numbers>

#include "common/error.h"
#include "io/gguf/gguf_file.h"
#include "io/gguf/gguf_import.h"
#include "io/hf/hf_config.h"
#include "io/hf/safetensors_file.h"
#include "support/gguf_test_file.h"
#include "support/temp_dir.h"
#include "support/tiny_gguf_model.h"

namespace strata::io {

namespace {

using namespace strata::testing;

/** A llama-, Qwen2-, Qwen3- or Gemma-3-shaped file of one block with every tensor in F32 (values
 *  i / 1000): width 8, 2 query heads and 1 key/value head of `headDim` (stated in
 *  <arch>.attention.key_length where it is not width / heads, and always for gemma3 and qwen3),
 *  without the tensor `leaveOut`. */
GgufTestFile smallModel(const std::string& arch, int64_t headDim = 4, int64_t vocab = 6,
                        const std::string& leaveOut = {}) {
  constexpr int64_t width = 8, heads = 2, kv = 1, ffn = 16;
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
      .set(arch + ".vocab_size", ggufUInt32(static_cast<uint32_t>(vocab)));
  if (headDim != width / heads || arch == "gemma3" || arch == "qwen3")
    f.set(arch + ".attention.key_length", ggufUInt32(static_cast<uint32_t>(headDim)))
        .set(arch + ".attention.value_length", ggufUInt32(static_cast<uint32_t>(headDim)));
  if (arch == "llama")
    f.set("llama.rope.dimension_count", ggufUInt32(static_cast<uint32_t>(headDim)));
  if (arch == "gemma3")  // with a tokenizer of its vocabulary: the import test writes one
    f.set("gemma3.attention.sliding_window", ggufUInt32(4))
        .set("tokenizer.ggml.model", ggufString("llama"))
        .set("tokenizer.ggml.tokens",
             ggufStringArray({"<pad>", "<eos>", "<bos>", "<unk>", "\xe2\x96\x81", "a"}))
        .set("tokenizer.ggml.token_type", ggufInt32Array({3, 3, 3, 2, 1, 1}))
        .set("tokenizer.ggml.scores", ggufFloat32Array({0, 0, 0, 0, -1, -2}))
        .set("tokenizer.ggml.bos_token_id", ggufUInt32(2))
        .set("tokenizer.ggml.eos_token_id", ggufUInt32(1))
        .set("tokenizer.ggml.unknown_token_id", ggufUInt32(3));
  auto add = [&](const std::string& name, std::vector<int64_t> dims) {
    if (name == leaveOut) return;
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
  }
  if (arch == "qwen3" || arch == "gemma3") {
    add("blk.0.attn_q_norm.weight", {headDim});
    add("blk.0.attn_k_norm.weight", {headDim});
  }
  if (arch == "gemma3") {
    add("blk.0.post_attention_norm.weight", {width});
    add("blk.0.post_ffw_norm.weight", {width});
  }
  return f;
}

/** llama.cpp's convert_hf_to_gguf (LlamaModel.generate_extra_tensors): the rope_freqs.weight of a
 *  Llama-3.1-style rope_scaling, computed as it does, in float32. */
std::vector<float> llama3RopeFreqs(float base, int64_t dim, float factor, float low, float high,
                                   float context) {
  std::vector<float> factors;
  for (int64_t i = 0; i < dim; i += 2) {
    const float frequency = 1.0f / std::pow(base, static_cast<float>(i) / static_cast<float>(dim));
    const float wavelength = 2.0f * std::numbers::pi_v<float> / frequency;
    if (wavelength < context / high)
      factors.push_back(1.0f);
    else if (wavelength > context / low)
      factors.push_back(factor);
    else {
      const float smooth = (context / wavelength - low) / (high - low);
      factors.push_back(1.0f / ((1.0f - smooth) / factor + smooth));
    }
  }
  return factors;
}

/** transformers' _compute_llama3_parameters for one frequency of a rope_scaling object. */
double llama3Frequency(double inverse, const nlohmann::json& s) {
  const double context = s["original_max_position_embeddings"], factor = s["factor"],
               low = s["low_freq_factor"], high = s["high_freq_factor"];
  const double wavelength = 2 * std::numbers::pi / inverse;
  if (wavelength < context / high) return inverse;
  if (wavelength > context / low) return inverse / factor;
  const double smooth = (context / wavelength - low) / (high - low);
  return (1 - smooth) * inverse / factor + smooth * inverse;
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

TEST_F(GgufModelPlanTest, Qwen3HasQueryKeyNormsNoBiasesAndTheHeadWidthOfKeyLength) {
  // Qwen3's heads are as wide as qwen3.attention.key_length says (128 in every released model),
  // not width / heads: 6 here against 8 / 2.
  const GgufModelPlan plan = planGgufModel(GgufFile(write(smallModel("qwen3", 6))));
  // Not const, here and below: a key the plan lacks then reads as null, and the test fails
  // instead of tripping the const operator[]'s assertion.
  auto config = nlohmann::json::parse(plan.configJson);
  EXPECT_EQ(config["architectures"][0], "Qwen3ForCausalLM");
  EXPECT_EQ(config["model_type"], "qwen3");
  EXPECT_EQ(config["head_dim"], 6);
  EXPECT_EQ(config["attention_bias"], false);
  EXPECT_EQ(config["use_sliding_window"], false);
  EXPECT_EQ(config["rope_parameters"]["rope_theta"], 1e6);
  EXPECT_FALSE(config.contains("rope_scaling"));
  EXPECT_EQ(planOf(plan, "model.layers.0.self_attn.q_norm.weight").ggufName,
            "blk.0.attn_q_norm.weight");
  EXPECT_EQ(planOf(plan, "model.layers.0.self_attn.k_norm.weight").ggufName,
            "blk.0.attn_k_norm.weight");
  // llama.cpp's convert permutes q/k rows for llama only; Qwen3's stay as they are, and its norm
  // weights are the weights (no Gemma offset).
  for (const char* name :
       {"model.layers.0.self_attn.q_proj.weight", "model.layers.0.self_attn.k_proj.weight",
        "model.layers.0.self_attn.q_norm.weight", "model.layers.0.input_layernorm.weight"})
    EXPECT_EQ(planOf(plan, name).fix, GgufTensorFix::None) << name;
  EXPECT_EQ(plan.tensors.size(), 13u);  // embedding, 11 block tensors, final norm (tied)
  EXPECT_TRUE(plan.warnings.empty()) << plan.warnings.front();
  // Strata's own reader takes it as its Qwen3.
  const ModelConfig parsed = parseModelConfig(plan.configJson, "config.json");
  EXPECT_EQ(parsed.architecture, Architecture::Qwen3);
  EXPECT_TRUE(parsed.qkNorm);
  EXPECT_FALSE(parsed.attentionBias);
  EXPECT_EQ(parsed.headDim, 6);
}

TEST_F(GgufModelPlanTest, Qwen3NeedsItsNormsAndLeavesBiasesUnused) {
  try {
    planGgufModel(GgufFile(write(smallModel("qwen3", 4, 6, "blk.0.attn_k_norm.weight"))));
    FAIL();
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("tensor 'blk.0.attn_k_norm.weight': is missing"),
              std::string::npos)
        << e.what();
  }
  // llama.cpp's Qwen3 has no q/k/v biases (transformers' neither): a file's are reported unused.
  GgufTestFile biased = smallModel("qwen3");
  biased.addF32Tensor("blk.0.attn_q.bias", {8}, std::vector<float>(8));
  const GgufModelPlan plan = planGgufModel(GgufFile(write(biased, "biased.gguf")));
  ASSERT_EQ(plan.warnings.size(), 1u);
  EXPECT_NE(plan.warnings[0].find("'blk.0.attn_q.bias' is not used by the qwen3 model"),
            std::string::npos)
      << plan.warnings[0];
}

TEST_F(GgufModelPlanTest, MistralStyleLlamaFilesKeepTheirHeadWidthAndVocabulary) {
  // Mistral's files are llama files: vocabulary 32768, heads wider than width / heads where
  // the model says so (Mistral-Nemo: 128 at 5120 / 32), stated in key_length and
  // rope.dimension_count, and no sliding-window key (llama.cpp attends over everything).
  GgufTestFile f = smallModel("llama", 12, 32768);
  f.set("general.name", ggufString("Mistral-Nemo-Instruct-2407"));
  const GgufModelPlan plan = planGgufModel(GgufFile(write(f)));
  auto config = nlohmann::json::parse(plan.configJson);
  EXPECT_EQ(config["architectures"][0], "LlamaForCausalLM");
  EXPECT_EQ(config["vocab_size"], 32768);
  EXPECT_EQ(config["hidden_size"], 8);
  EXPECT_EQ(config["num_attention_heads"], 2);
  EXPECT_EQ(config["head_dim"], 12);
  EXPECT_FALSE(config.contains("sliding_window"));
  EXPECT_FALSE(config.contains("rope_scaling"));
  EXPECT_TRUE(plan.warnings.empty()) << plan.warnings.front();
  const GgufTensorPlan& q = planOf(plan, "model.layers.0.self_attn.q_proj.weight");
  EXPECT_EQ(q.fix, GgufTensorFix::UnpermuteRotaryRows);
  EXPECT_EQ(q.heads, 2);
  EXPECT_EQ(planOf(plan, "model.layers.0.self_attn.k_proj.weight").heads, 1);
  const ModelConfig parsed = parseModelConfig(plan.configJson, "config.json");
  EXPECT_EQ(parsed.headDim, 12);
  EXPECT_EQ(parsed.vocabSize, 32768);

  // Strata's Llama rotates the whole head, as llama.cpp requires of llama files.
  f.set("llama.rope.dimension_count", ggufUInt32(8));
  try {
    planGgufModel(GgufFile(write(f, "partial.gguf")));
    FAIL();
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("key 'llama.rope.dimension_count': 8 rotated "
                                         "dimensions per head, but heads are 12 wide"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(GgufModelPlanTest, Llama31RopeFreqsBecomeItsRopeScaling) {
  // Llama-3.1-8B: head_dim 128, RoPE base 500000, rope_scaling factor 8, low_freq_factor 1,
  // high_freq_factor 4, original context 8192 — in the GGUF only as rope_freqs.weight.
  GgufTestFile f = smallModel("llama", 128);
  f.set("llama.rope.freq_base", ggufFloat32(500000.0f));
  f.addF32Tensor("rope_freqs.weight", {64}, llama3RopeFreqs(500000.0f, 128, 8, 1, 4, 8192));
  const GgufModelPlan plan = planGgufModel(GgufFile(write(f)));
  auto config = nlohmann::json::parse(plan.configJson);
  const nlohmann::json scaling = {{"rope_type", "llama3"},
                                  {"factor", 8.0},
                                  {"low_freq_factor", 1.0},
                                  {"high_freq_factor", 4.0},
                                  {"original_max_position_embeddings", 8192}};
  EXPECT_EQ(config["rope_scaling"], scaling) << config.dump();
  nlohmann::json parameters = scaling;
  parameters["rope_theta"] = 500000.0;
  EXPECT_EQ(config["rope_parameters"], parameters) << config.dump();
  // Read into the config: neither a tensor of the model nor an unused one.
  EXPECT_TRUE(plan.warnings.empty()) << plan.warnings.front();
  for (const GgufTensorPlan& t : plan.tensors) EXPECT_NE(t.ggufName, "rope_freqs.weight");
  const ModelConfig parsed = parseModelConfig(plan.configJson, "config.json");
  ASSERT_TRUE(parsed.ropeScaling.has_value());
  EXPECT_EQ(parsed.ropeScaling->type, "llama3");
  EXPECT_EQ(parsed.ropeScaling->factor, 8.0);
  EXPECT_EQ(parsed.ropeScaling->lowFreqFactor, 1.0);
  EXPECT_EQ(parsed.ropeScaling->highFreqFactor, 4.0);
  EXPECT_EQ(parsed.ropeScaling->originalMaxPositions, 8192);
}

TEST_F(GgufModelPlanTest, RopeFreqsGiveLlamaCppsFrequenciesWhateverTheirTransitionBand) {
  // head_dim 16, base 10000: wavelengths 2π·10^(i/2) = 6.3, 19.9, 62.8, 199, 628, 1987, 6283,
  // 19869. Each case puts a different number of them between the two bands: what llama.cpp
  // computes, base^(-2i/d) / rope_freqs[i], must be what the written rope_scaling gives.
  struct Case {
    float factor, low, high, context;
    bool contextKey;  ///< llama.rope.scaling.original_context_length written
    int transition;   ///< wavelengths between context / high and context / low
  };
  for (const Case c :
       {Case{8, 1, 32, 8192, true, 3}, Case{8, 1, 4, 64, false, 2}, Case{4, 1, 2, 100, false, 1},
        Case{4, 1, 1.5f, 100, true, 0}, Case{16, 2, 8, 50000, false, 2}}) {
    SCOPED_TRACE(::testing::Message() << "factor " << c.factor << ", low " << c.low << ", high "
                                      << c.high << ", context " << c.context);
    GgufTestFile f = smallModel("llama", 16);
    f.set("llama.rope.freq_base", ggufFloat32(10000.0f));
    if (c.contextKey)
      f.set("llama.rope.scaling.original_context_length",
            ggufUInt32(static_cast<uint32_t>(c.context)));
    const std::vector<float> factors =
        llama3RopeFreqs(10000.0f, 16, c.factor, c.low, c.high, c.context);
    int transition = 0;
    for (float x : factors) transition += x != 1.0f && x != c.factor;
    ASSERT_EQ(transition, c.transition);
    f.addF32Tensor("rope_freqs.weight", {8}, factors);
    auto config = nlohmann::json::parse(planGgufModel(GgufFile(write(f, "rope.gguf"))).configJson);
    nlohmann::json& scaling = config["rope_scaling"];
    ASSERT_EQ(scaling["rope_type"], "llama3") << config.dump();
    // Where the lowest frequency is scaled fully (in every Llama 3), the factor comes back; with
    // the original context and two transition frequencies, the parameters themselves. Otherwise
    // (the last case: the lowest frequency is in the transition band) other parameters give
    // the same frequencies.
    if (factors.back() == c.factor) {
      EXPECT_EQ(scaling["factor"], c.factor);
    }
    if (c.contextKey && c.transition >= 2) {
      EXPECT_EQ(scaling["original_max_position_embeddings"], c.context);
      EXPECT_EQ(scaling["low_freq_factor"], c.low);
      EXPECT_EQ(scaling["high_freq_factor"], c.high);
    }
    for (int i = 0; i < 8; ++i) {
      const double inverse = std::pow(10000.0, -2.0 * i / 16.0), want = inverse / factors[i];
      EXPECT_NEAR(llama3Frequency(inverse, scaling), want, 1e-5 * want) << "frequency " << i;
    }
  }
}

TEST_F(GgufModelPlanTest, LinearRopeScalingKeysScaleEveryLayerOrGemmasGlobalOnes) {
  GgufTestFile llama = smallModel("llama");
  llama.set("llama.rope.scaling.type", ggufString("linear"))
      .set("llama.rope.scaling.factor", ggufFloat32(4.0f));
  auto config = nlohmann::json::parse(planGgufModel(GgufFile(write(llama))).configJson);
  EXPECT_EQ(config["rope_scaling"], nlohmann::json({{"rope_type", "linear"}, {"factor", 4.0}}));
  EXPECT_EQ(config["rope_parameters"]["rope_type"], "linear");
  // llama.cpp never scales under "none", whatever the factor.
  llama.set("llama.rope.scaling.type", ggufString("none"));
  config = nlohmann::json::parse(planGgufModel(GgufFile(write(llama, "none.gguf"))).configJson);
  EXPECT_FALSE(config.contains("rope_scaling")) << config.dump();
  EXPECT_EQ(config["rope_parameters"]["rope_type"], "default");

  // Gemma-3 4B and up: factor 8 on the global layers; llama.cpp leaves the sliding ones alone.
  GgufTestFile gemma = smallModel("gemma3");
  gemma.set("gemma3.rope.scaling.type", ggufString("linear"))
      .set("gemma3.rope.scaling.factor", ggufFloat32(8.0f));
  const GgufModelPlan plan = planGgufModel(GgufFile(write(gemma, "gemma.gguf")));
  config = nlohmann::json::parse(plan.configJson);
  EXPECT_EQ(config["rope_parameters"]["full_attention"],
            nlohmann::json({{"rope_type", "linear"}, {"rope_theta", 1e6}, {"factor", 8.0}}));
  EXPECT_EQ(config["rope_parameters"]["sliding_attention"]["rope_type"], "default");
  const ModelConfig parsed = parseModelConfig(plan.configJson, "config.json");
  ASSERT_TRUE(parsed.ropeScaling.has_value());
  EXPECT_EQ(parsed.ropeScaling->type, "linear");
  EXPECT_EQ(parsed.ropeScaling->factor, 8.0);
}

TEST_F(GgufModelPlanTest, RopeScalingErrorsNameTheKeyOrTheTensor) {
  const auto message = [&](const GgufTestFile& f, const std::string& name) -> std::string {
    try {
      planGgufModel(GgufFile(write(f, name)));
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  // Qwen2.5's long-context YaRN: Strata's RoPE has none, and running without it would differ.
  GgufTestFile yarn = smallModel("qwen2");
  yarn.set("qwen2.rope.scaling.type", ggufString("yarn"))
      .set("qwen2.rope.scaling.factor", ggufFloat32(4.0f));
  EXPECT_NE(message(yarn, "yarn.gguf")
                .find("field 'qwen2.rope.scaling.type': 'yarn' RoPE scaling is not supported"),
            std::string::npos)
      << message(yarn, "yarn.gguf");

  GgufTestFile noise = smallModel("llama", 16);
  noise.addF32Tensor("rope_freqs.weight", {8}, {1, 3, 1, 8, 2, 8, 8, 8});
  EXPECT_NE(message(noise, "noise.gguf")
                .find("tensor 'rope_freqs.weight': holds per-frequency RoPE factors that Llama "
                      "3's rope scaling does not produce"),
            std::string::npos)
      << message(noise, "noise.gguf");

  GgufTestFile shortFreqs = smallModel("llama", 16);
  shortFreqs.addF32Tensor("rope_freqs.weight", {4}, {1, 1, 8, 8});
  EXPECT_NE(message(shortFreqs, "short.gguf")
                .find("tensor 'rope_freqs.weight': has shape [4] but the metadata implies [8]"),
            std::string::npos)
      << message(shortFreqs, "short.gguf");

  GgufTestFile both = smallModel("llama", 16);
  both.set("llama.rope.scaling.factor", ggufFloat32(2.0f))
      .addF32Tensor("rope_freqs.weight", {8}, llama3RopeFreqs(1e6f, 16, 8, 1, 4, 64));
  EXPECT_NE(message(both, "both.gguf")
                .find("field 'llama.rope.scaling.factor': a linear factor together with "
                      "per-frequency factors"),
            std::string::npos)
      << message(both, "both.gguf");
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
