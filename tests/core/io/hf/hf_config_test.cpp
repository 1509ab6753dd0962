// config.json parsing: every supported architecture, the traps listed in NOTES.md, and errors
// that name the file and the field.

#include "io/hf/hf_config.h"

#include <gtest/gtest.h>

#include <cmath>

#include "common/error.h"

namespace strata::io {

namespace {

const char* kLlama32 = R"({
  "architectures": ["LlamaForCausalLM"], "model_type": "llama",
  "vocab_size": 128256, "hidden_size": 2048, "num_hidden_layers": 16,
  "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 8192,
  "max_position_embeddings": 131072, "rms_norm_eps": 1e-05, "rope_theta": 500000.0,
  "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                   "original_max_position_embeddings": 8192, "rope_type": "llama3"},
  "tie_word_embeddings": true, "bos_token_id": 128000,
  "eos_token_id": [128001, 128008, 128009], "torch_dtype": "bfloat16"})";

template <typename Error>
std::string errorOf(const std::string& json) {
  try {
    parseModelConfig(json, "/models/x/config.json");
  } catch (const Error& error) {
    return error.what();
  }
  ADD_FAILURE() << "expected an error for " << json;
  return {};
}

TEST(ModelConfig, ReadsLlama32WithGqaRopeScalingAndTiedHead) {
  const ModelConfig c = parseModelConfig(kLlama32, "config.json");
  EXPECT_EQ(c.architecture, Architecture::Llama);
  EXPECT_EQ(c.numLayers, 16);
  EXPECT_EQ(c.numHeads, 32);
  EXPECT_EQ(c.numKeyValueHeads, 8);
  EXPECT_EQ(c.headDim, 64);
  EXPECT_TRUE(c.tieWordEmbeddings);
  EXPECT_DOUBLE_EQ(c.ropeTheta, 500000.0);
  ASSERT_TRUE(c.ropeScaling.has_value());
  EXPECT_EQ(c.ropeScaling->type, "llama3");
  EXPECT_DOUBLE_EQ(c.ropeScaling->factor, 32.0);
  EXPECT_EQ(c.ropeScaling->originalMaxPositions, 8192);
  EXPECT_EQ(c.eosTokenIds, (std::vector<int64_t>{128001, 128008, 128009}));
  EXPECT_EQ(c.bosTokenIds, (std::vector<int64_t>{128000}));
}

TEST(ModelConfig, ReadsRopeParametersOfNewerConfigs) {
  const ModelConfig c = parseModelConfig(R"({"architectures": ["LlamaForCausalLM"],
    "vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2,
    "intermediate_size": 16, "rope_parameters": {"rope_type": "llama3", "rope_theta": 250000.0,
    "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
    "original_max_position_embeddings": 4096}})",
                                         "config.json");
  ASSERT_TRUE(c.ropeScaling.has_value());
  EXPECT_DOUBLE_EQ(c.ropeScaling->factor, 8.0);
  EXPECT_DOUBLE_EQ(c.ropeTheta, 250000.0);
  EXPECT_EQ(c.numKeyValueHeads, 2);  // defaults to the attention heads
}

TEST(ModelConfig, ReadsQwen2WithQkvBias) {
  const ModelConfig c = parseModelConfig(R"({"architectures": ["Qwen2ForCausalLM"],
    "model_type": "qwen2", "vocab_size": 151936, "hidden_size": 896, "num_hidden_layers": 24,
    "num_attention_heads": 14, "num_key_value_heads": 2, "intermediate_size": 4864,
    "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "tie_word_embeddings": true})",
                                         "config.json");
  EXPECT_EQ(c.architecture, Architecture::Qwen2);
  EXPECT_TRUE(c.attentionBias);
  EXPECT_FALSE(c.qkNorm);
  EXPECT_EQ(c.headDim, 64);
}

TEST(ModelConfig, Qwen3HeadDimIsExplicitNotDerived) {
  const ModelConfig c = parseModelConfig(R"({"architectures": ["Qwen3ForCausalLM"],
    "vocab_size": 151936, "hidden_size": 1024, "num_hidden_layers": 28,
    "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128,
    "intermediate_size": 3072, "attention_bias": false})",
                                         "config.json");
  EXPECT_EQ(c.architecture, Architecture::Qwen3);
  EXPECT_EQ(c.headDim, 128);  // not 1024 / 16 = 64
  EXPECT_TRUE(c.qkNorm);
  EXPECT_FALSE(c.attentionBias);
}

TEST(ModelConfig, ReadsGpt2Names) {
  const ModelConfig c = parseModelConfig(R"({"architectures": ["GPT2LMHeadModel"],
    "vocab_size": 50257, "n_embd": 768, "n_layer": 12, "n_head": 12, "n_positions": 1024,
    "n_inner": null, "activation_function": "gelu_new", "layer_norm_epsilon": 1e-05})",
                                         "config.json");
  EXPECT_EQ(c.architecture, Architecture::Gpt2);
  EXPECT_EQ(c.hiddenSize, 768);
  EXPECT_EQ(c.intermediateSize, 4 * 768);  // n_inner null means 4 * n_embd
  EXPECT_EQ(c.maxPositions, 1024);
  EXPECT_TRUE(c.tieWordEmbeddings);
  EXPECT_EQ(c.hiddenAct, "gelu_new");
  EXPECT_EQ(c.hiddenActField, "activation_function");
  // wpe has n_positions rows: nothing exists past them.
  EXPECT_EQ(c.positionEncoding, PositionEncoding::LearnedAbsolute);
  EXPECT_TRUE(c.positionsEndAtMax());
}

TEST(ModelConfig, ReadsGptNeoXPartialRotaryAndParallelResidual) {
  const ModelConfig c = parseModelConfig(R"({"architectures": ["GPTNeoXForCausalLM"],
    "vocab_size": 50304, "hidden_size": 512, "num_hidden_layers": 6,
    "num_attention_heads": 8, "intermediate_size": 2048, "rotary_pct": 0.25,
    "rotary_emb_base": 10000, "use_parallel_residual": true, "layer_norm_eps": 1e-05,
    "tie_word_embeddings": false})",
                                         "config.json");
  EXPECT_EQ(c.architecture, Architecture::GptNeoX);
  EXPECT_DOUBLE_EQ(c.rotaryFraction, 0.25);
  EXPECT_TRUE(c.parallelResidual);
  EXPECT_FALSE(c.tieWordEmbeddings);
  EXPECT_EQ(c.positionEncoding, PositionEncoding::Rotary);
  EXPECT_FALSE(c.positionsEndAtMax());
  EXPECT_EQ(c.hiddenActField, "hidden_act");
}

// transformers 5 saves GPT-NeoX's rotary settings only inside rope_parameters; without a
// rotary share at all, GPTNeoXConfig's default (0.25) applies, not a full rotation.
TEST(ModelConfig, ReadsGptNeoXRotaryFromTransformers5RopeParameters) {
  const std::string fields = R"("architectures": ["GPTNeoXForCausalLM"], "vocab_size": 72,
    "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128)";
  const ModelConfig saved = parseModelConfig("{" + fields + R"(, "rope_parameters":
    {"partial_rotary_factor": 0.5, "rope_theta": 500, "rope_type": "default"}})",
                                             "config.json");
  EXPECT_DOUBLE_EQ(saved.rotaryFraction, 0.5);
  EXPECT_DOUBLE_EQ(saved.ropeTheta, 500.0);
  EXPECT_FALSE(saved.ropeScaling.has_value());
  const ModelConfig bare = parseModelConfig("{" + fields + "}", "config.json");
  EXPECT_DOUBLE_EQ(bare.rotaryFraction, 0.25);
  EXPECT_DOUBLE_EQ(bare.ropeTheta, 10000.0);
}

// google/gemma-3-270m's config.json (transformers 4.55): layer_types, and the RoPE bases of
// the global and the sliding layers at the top level.
std::string gemma3Config270m(const std::string& extra = {}) {
  std::string layerTypes;
  for (int layer = 0; layer < 18; ++layer)
    layerTypes += std::string(layer ? ", " : "") +
                  ((layer + 1) % 6 ? "\"sliding_attention\"" : "\"full_attention\"");
  return R"({"_sliding_window_pattern": 6, "architectures": ["Gemma3ForCausalLM"],
    "attention_bias": false, "attn_logit_softcapping": null, "bos_token_id": 2,
    "eos_token_id": 1, "final_logit_softcapping": null, "head_dim": 256,
    "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 640, "intermediate_size": 2048,
    "layer_types": [)" +
         layerTypes + R"(], "max_position_embeddings": 32768, "model_type": "gemma3_text",
    "num_attention_heads": 4, "num_hidden_layers": 18, "num_key_value_heads": 1,
    "pad_token_id": 0, "query_pre_attn_scalar": 256, "rms_norm_eps": 1e-06,
    "rope_local_base_freq": 10000.0, "rope_scaling": null, "rope_theta": 1000000.0,
    "sliding_window": 512, "torch_dtype": "bfloat16", "use_bidirectional_attention": false,
    "vocab_size": 262144)" +
         extra + "}";
}

TEST(ModelConfig, ReadsGemma3AsTheHubWritesIt) {
  const ModelConfig c = parseModelConfig(gemma3Config270m(), "config.json");
  EXPECT_EQ(c.architecture, Architecture::Gemma3);
  EXPECT_EQ(c.headDim, 256);  // explicit: 640 / 4 would be 160
  EXPECT_EQ(c.numKeyValueHeads, 1);
  EXPECT_EQ(c.hiddenAct, "gelu_pytorch_tanh");
  EXPECT_EQ(c.hiddenActField, "hidden_activation");
  EXPECT_TRUE(c.qkNorm);
  EXPECT_TRUE(c.tieWordEmbeddings);  // Gemma3TextConfig's default
  ASSERT_EQ(c.layerAttention.size(), 18u);
  for (int64_t layer = 0; layer < 18; ++layer)
    EXPECT_EQ(c.slidingLayer(layer), (layer + 1) % 6 != 0) << "layer " << layer;
  EXPECT_EQ(c.slidingWindow, 512);
  EXPECT_DOUBLE_EQ(c.ropeTheta, 1e6);
  EXPECT_DOUBLE_EQ(c.localRopeTheta, 1e4);
  EXPECT_FALSE(c.ropeScaling.has_value());
  EXPECT_DOUBLE_EQ(c.attentionScale, 1.0 / 16.0);
  EXPECT_DOUBLE_EQ(c.embeddingScale, std::sqrt(640.0));
  EXPECT_DOUBLE_EQ(c.finalLogitSoftcap, 0.0);
}

TEST(ModelConfig, ReadsGemma3PatternAndGlobalRopeScalingOfOlderConfigs) {
  // gemma-3-1b / the 4B text config (transformers 4.50): no layer_types, linear scaling for
  // the global layers only.
  const ModelConfig c = parseModelConfig(R"({"architectures": ["Gemma3ForCausalLM"],
    "vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 8, "num_attention_heads": 2,
    "num_key_value_heads": 1, "head_dim": 4, "intermediate_size": 16,
    "sliding_window_pattern": 3, "sliding_window": 5, "rope_theta": 500000.0,
    "rope_local_base_freq": 100.0, "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
    "final_logit_softcapping": 30.0})",
                                         "config.json");
  for (int64_t layer = 0; layer < 8; ++layer)
    EXPECT_EQ(c.slidingLayer(layer), layer != 2 && layer != 5) << "layer " << layer;
  ASSERT_TRUE(c.ropeScaling.has_value());
  EXPECT_EQ(c.ropeScaling->type, "linear");
  EXPECT_DOUBLE_EQ(c.ropeScaling->factor, 8.0);
  EXPECT_FALSE(c.localRopeScaling.has_value());
  EXPECT_DOUBLE_EQ(c.ropeTheta, 5e5);
  EXPECT_DOUBLE_EQ(c.localRopeTheta, 100.0);
  EXPECT_DOUBLE_EQ(c.attentionScale, 0.0625);  // query_pre_attn_scalar's default, 256
  EXPECT_DOUBLE_EQ(c.finalLogitSoftcap, 30.0);
  // Without a pattern, every sixth layer is global.
  const ModelConfig six = parseModelConfig(R"({"architectures": ["Gemma3ForCausalLM"],
    "vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 7, "num_attention_heads": 8,
    "intermediate_size": 16})",
                                           "config.json");
  for (int64_t layer = 0; layer < 7; ++layer)
    EXPECT_EQ(six.slidingLayer(layer), layer != 5) << "layer " << layer;
  EXPECT_EQ(six.slidingWindow, 4096);
  EXPECT_EQ(six.headDim, 256);
  EXPECT_EQ(six.numKeyValueHeads, 4);
}

TEST(ModelConfig, ReadsGemma3RopeParametersPerLayerType) {
  const ModelConfig c = parseModelConfig(R"({"architectures": ["Gemma3ForCausalLM"],
    "vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2,
    "num_key_value_heads": 2, "head_dim": 4, "intermediate_size": 16, "sliding_window": 3,
    "layer_types": ["full_attention", "sliding_attention"], "query_pre_attn_scalar": 12,
    "rope_parameters": {"full_attention": {"rope_type": "linear", "factor": 4.0,
                                           "rope_theta": 2000.0},
                        "sliding_attention": {"rope_type": "default", "rope_theta": 50.0}}})",
                                         "config.json");
  EXPECT_FALSE(c.slidingLayer(0));
  EXPECT_TRUE(c.slidingLayer(1));
  ASSERT_TRUE(c.ropeScaling.has_value());
  EXPECT_DOUBLE_EQ(c.ropeScaling->factor, 4.0);
  EXPECT_DOUBLE_EQ(c.ropeTheta, 2000.0);
  EXPECT_DOUBLE_EQ(c.localRopeTheta, 50.0);
  EXPECT_FALSE(c.localRopeScaling.has_value());
  EXPECT_DOUBLE_EQ(c.attentionScale, 1.0 / std::sqrt(12.0));
}

TEST(ModelConfig, RejectsGemma3LayerTypesAndModesItCannotRun) {
  EXPECT_NE(errorOf<ConfigError>(gemma3Config270m(R"(, "layer_types": ["full_attention"])"))
                .find("'layer_types'"),
            std::string::npos);
  std::string twoLayers = gemma3Config270m(R"(, "num_hidden_layers": 2,
    "layer_types": ["full_attention", "chunked_attention"])");
  EXPECT_NE(errorOf<ConfigError>(twoLayers).find("chunked_attention"), std::string::npos);
  EXPECT_NE(errorOf<ConfigError>(gemma3Config270m(R"(, "use_bidirectional_attention": true)"))
                .find("use_bidirectional_attention"),
            std::string::npos);
  EXPECT_NE(errorOf<ConfigError>(gemma3Config270m(R"(, "sliding_window": null)"))
                .find("'sliding_window'"),
            std::string::npos);
}

TEST(ModelConfig, UnknownArchitectureListsTheSupportedOnes) {
  const std::string message = errorOf<ConfigError>(R"({"architectures": ["MambaForCausalLM"]})");
  EXPECT_NE(message.find("/models/x/config.json"), std::string::npos) << message;
  EXPECT_NE(message.find("MambaForCausalLM"), std::string::npos) << message;
  for (const char* name : {"LlamaForCausalLM", "Qwen2ForCausalLM", "Qwen3ForCausalLM",
                           "GPT2LMHeadModel", "GPTNeoXForCausalLM", "Gemma3ForCausalLM"})
    EXPECT_NE(message.find(name), std::string::npos) << message;
}

TEST(ModelConfig, MissingFieldIsNamed) {
  const std::string message = errorOf<ConfigError>(R"({"architectures": ["LlamaForCausalLM"],
    "vocab_size": 10, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 4})");
  EXPECT_NE(message.find("'hidden_size'"), std::string::npos) << message;
  EXPECT_NE(message.find("missing"), std::string::npos) << message;
}

TEST(ModelConfig, WrongTypeIsNamed) {
  const std::string message = errorOf<ConfigError>(R"({"architectures": ["LlamaForCausalLM"],
    "vocab_size": 10, "hidden_size": "64", "num_hidden_layers": 1, "num_attention_heads": 2,
    "intermediate_size": 4})");
  EXPECT_NE(message.find("'hidden_size'"), std::string::npos) << message;
  EXPECT_NE(message.find("integer"), std::string::npos) << message;
}

TEST(ModelConfig, RejectsHeadsThatDoNotDivideTheKeyValueHeads) {
  const std::string message = errorOf<ConfigError>(R"({"architectures": ["LlamaForCausalLM"],
    "vocab_size": 10, "hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 8,
    "num_key_value_heads": 3, "intermediate_size": 4})");
  EXPECT_NE(message.find("num_key_value_heads"), std::string::npos) << message;
}

TEST(ModelConfig, RejectsInvalidJsonNamingTheFile) {
  const std::string message = errorOf<FormatError>("{\"architectures\": [");
  EXPECT_NE(message.find("/models/x/config.json"), std::string::npos) << message;
  EXPECT_NE(message.find("not valid JSON"), std::string::npos) << message;
}

TEST(ModelConfig, RejectsNonPositiveSizes) {
  const std::string message = errorOf<ConfigError>(R"({"architectures": ["LlamaForCausalLM"],
    "vocab_size": 10, "hidden_size": 0, "num_hidden_layers": 1, "num_attention_heads": 2,
    "intermediate_size": 4})");
  EXPECT_NE(message.find("'hidden_size'"), std::string::npos) << message;
  EXPECT_NE(message.find("positive"), std::string::npos) << message;
}

}  // namespace
}  // namespace strata::io
