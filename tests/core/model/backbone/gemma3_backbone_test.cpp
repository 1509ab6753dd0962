// Gemma-3's behaviour beyond the numbers (model_reference_test checks those against
// transformers): the sliding window cuts exactly where masking_utils cuts, a pass split at any
// layer still gives each layer its own kind of attention, padding leaves real tokens alone
// although the window cuts, bfloat16 compute tracks float32, the embedding scale is rounded
// as transformers rounds it, and the trainable copy refuses the architecture.

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "common/error.h"
#include "io/hf/safetensors_file.h"
#include "model/backbone/backbone.h"
#include "model/backbone/safetensors_torch.h"
#include "model/trainable/trainable_backbone.h"
#include "support/temp_dir.h"

namespace strata::model {

namespace {

constexpr int64_t kVocab = 40, kHidden = 24, kHeads = 4, kKvHeads = 2, kHeadDim = 8, kFf = 32;
constexpr int64_t kWindow = 3;

/**
 * A random Gemma3ForCausalLM folder of 4 layers; `layerTypes` says which slide (window 3).
 * d = 24 makes √d = 4.898979… inexact in bfloat16 (4.90625).
 */
void writeGemma3(const std::filesystem::path& folder, const std::vector<std::string>& layerTypes) {
  std::filesystem::create_directories(folder);
  const nlohmann::json config = {{"architectures", {"Gemma3ForCausalLM"}},
                                 {"model_type", "gemma3_text"},
                                 {"vocab_size", kVocab},
                                 {"hidden_size", kHidden},
                                 {"intermediate_size", kFf},
                                 {"num_hidden_layers", static_cast<int64_t>(layerTypes.size())},
                                 {"num_attention_heads", kHeads},
                                 {"num_key_value_heads", kKvHeads},
                                 {"head_dim", kHeadDim},
                                 {"query_pre_attn_scalar", 10},
                                 {"sliding_window", kWindow},
                                 {"layer_types", layerTypes},
                                 {"max_position_embeddings", 64}};
  std::ofstream(folder / "config.json") << config.dump(2);
  at::manual_seed(11);
  NamedTensors tensors = {{"model.embed_tokens.weight", at::randn({kVocab, kHidden}) * 0.3},
                          {"model.norm.weight", 0.1 * at::randn({kHidden})}};
  const int64_t q = kHeads * kHeadDim, kv = kKvHeads * kHeadDim;
  const auto matrix = [](int64_t rows, int64_t columns) {
    return at::randn({rows, columns}) / std::sqrt(static_cast<double>(columns));
  };
  for (std::size_t layer = 0; layer < layerTypes.size(); ++layer) {
    const std::string p = "model.layers." + std::to_string(layer) + ".";
    for (const char* norm : {"input_layernorm", "post_attention_layernorm",
                             "pre_feedforward_layernorm", "post_feedforward_layernorm"})
      tensors.emplace_back(p + norm + ".weight", 0.1 * at::randn({kHidden}));
    tensors.insert(tensors.end(), {{p + "self_attn.q_proj.weight", matrix(q, kHidden)},
                                   {p + "self_attn.k_proj.weight", matrix(kv, kHidden)},
                                   {p + "self_attn.v_proj.weight", matrix(kv, kHidden)},
                                   {p + "self_attn.o_proj.weight", matrix(kHidden, q)},
                                   {p + "self_attn.q_norm.weight", 0.1 * at::randn({kHeadDim})},
                                   {p + "self_attn.k_norm.weight", 0.1 * at::randn({kHeadDim})},
                                   {p + "mlp.gate_proj.weight", matrix(kFf, kHidden)},
                                   {p + "mlp.up_proj.weight", matrix(kFf, kHidden)},
                                   {p + "mlp.down_proj.weight", matrix(kHidden, kFf)}});
  }
  writeSafetensors(folder / "model.safetensors", tensors);
}

const std::vector<std::string> kMixed = {"sliding_attention", "sliding_attention", "full_attention",
                                         "sliding_attention"};

at::Tensor someIds(int64_t batch, int64_t length) {
  return at::arange(batch * length, at::kLong).view({batch, length}).mul(7).remainder(kVocab);
}

/** h_1 at the last of 8 positions, with the token `back` places before it changed. */
at::Tensor firstLayerAtLastWithChangeBack(const Backbone& backbone, int64_t back) {
  at::Tensor ids = someIds(1, 8);
  ids[0][7 - back] = (ids[0][7 - back].item<int64_t>() + 1) % kVocab;
  return backbone.runLayers(backbone.embed(ids), 0, 1)[0][7];
}

TEST(Gemma3Backbone, SlidingLayersSeeTheWindowTheirOwnTokenIncluded) {
  TempDir dir;
  writeGemma3(dir / "sliding", kMixed);
  const auto sliding = Backbone::load(dir / "sliding");
  const at::Tensor unchanged = sliding->runLayers(sliding->embed(someIds(1, 8)), 0, 1)[0][7];
  // q − k < window: the keys 0, 1, 2 places back are seen, 3 places back is not.
  EXPECT_FALSE(at::equal(firstLayerAtLastWithChangeBack(*sliding, kWindow - 1), unchanged));
  EXPECT_TRUE(at::equal(firstLayerAtLastWithChangeBack(*sliding, kWindow), unchanged));
  EXPECT_TRUE(at::equal(firstLayerAtLastWithChangeBack(*sliding, 7), unchanged));

  writeGemma3(dir / "full", {"full_attention", "sliding_attention"});
  const auto full = Backbone::load(dir / "full");
  const at::Tensor fullUnchanged = full->runLayers(full->embed(someIds(1, 8)), 0, 1)[0][7];
  EXPECT_FALSE(at::equal(firstLayerAtLastWithChangeBack(*full, 7), fullUnchanged));
}

TEST(Gemma3Backbone, RunLayersComposesAtAnySplit) {
  TempDir dir;
  writeGemma3(dir / "m", kMixed);
  const auto backbone = Backbone::load(dir / "m");
  const int64_t layers = backbone->numLayers();
  const at::Tensor h0 = backbone->embed(someIds(2, 9));
  const at::Tensor whole = backbone->runLayers(h0, 0, layers);
  for (int64_t split = 0; split <= layers; ++split) {
    const at::Tensor lower = backbone->runLayers(h0, 0, split);
    EXPECT_TRUE(at::equal(backbone->runLayers(lower, split, layers), whole)) << "split " << split;
  }
  EXPECT_TRUE(at::equal(backbone->capture(someIds(2, 9)).hidden.back(), whole));
}

TEST(Gemma3Backbone, PaddingOnEitherSideLeavesRealTokensUnchangedThoughTheWindowCuts) {
  TempDir dir;
  writeGemma3(dir / "m", kMixed);
  const auto backbone = Backbone::load(dir / "m");
  const at::Tensor shortIds = someIds(1, 6);  // longer than the window
  const at::Tensor alone = backbone->capture(shortIds).hidden.back()[0];
  for (const bool left : {true, false}) {
    const at::Tensor pad = at::zeros({1, 3}, at::kLong);
    const at::Tensor padded = left ? at::cat({pad, shortIds}, 1) : at::cat({shortIds, pad}, 1);
    CaptureRequest request;
    request.attention.paddingMask = at::ones({1, 9}, at::kBool);
    request.attention.paddingMask[0].slice(0, left ? 0 : 6, left ? 3 : 9).fill_(false);
    const at::Tensor h = backbone->capture(padded, request).hidden.back()[0];
    EXPECT_TRUE(at::allclose(h.slice(0, left ? 3 : 0, left ? 9 : 6), alone, 1e-5, 1e-5))
        << (left ? "left" : "right") << " padding";
    EXPECT_FALSE(h.isnan().any().item<bool>());
  }
}

TEST(Gemma3Backbone, EmbeddingIsScaledBySqrtDRoundedToTheComputeDType) {
  TempDir dir;
  writeGemma3(dir / "m", kMixed);
  const at::Tensor ids = someIds(1, 5);
  for (const at::ScalarType dtype : {at::kFloat, at::kBFloat16}) {
    const auto backbone = Backbone::load(dir / "m", {.computeDType = dtype});
    const auto file = io::SafetensorsFile::open(dir / "m" / "model.safetensors");
    const at::Tensor rows =
        tensorView(file, file->at("model.embed_tokens.weight")).index_select(0, ids[0]).to(dtype);
    // Gemma3TextScaledWordEmbedding: torch.tensor(√d) (float32), cast to the weights' dtype.
    const at::Tensor scale = at::scalar_tensor(std::sqrt(double(kHidden)), at::kFloat).to(dtype);
    EXPECT_TRUE(at::equal(backbone->embed(ids)[0], rows * scale)) << c10::toString(dtype);
  }
  EXPECT_EQ(at::scalar_tensor(std::sqrt(double(kHidden))).to(at::kBFloat16).item<float>(),
            4.90625f);
}

TEST(Gemma3Backbone, BFloat16ComputeTracksFloat32ResidentAndStreamed) {
  TempDir dir;
  writeGemma3(dir / "m", kMixed);
  const auto reference = Backbone::load(dir / "m");
  const auto resident = Backbone::load(dir / "m", {.computeDType = at::kBFloat16});
  const auto streamed =
      Backbone::load(dir / "m", {.streamLayers = true, .computeDType = at::kBFloat16});
  CaptureRequest request;
  request.logits = true;
  const CaptureResult want = reference->capture(someIds(2, 9), request);
  const CaptureResult got = resident->capture(someIds(2, 9), request);
  const CaptureResult gotStreamed = streamed->capture(someIds(2, 9), request);
  const auto relative = [](const at::Tensor& a, const at::Tensor& b) {
    return (a.to(at::kFloat) - b).norm().item<double>() / b.norm().item<double>();
  };
  for (std::size_t l = 0; l < want.hidden.size(); ++l) {
    EXPECT_EQ(got.hidden[l].scalar_type(), at::kBFloat16);
    EXPECT_LT(relative(got.hidden[l], want.hidden[l]), 3e-2) << "layer " << l;
    EXPECT_TRUE(at::equal(gotStreamed.hidden[l], got.hidden[l])) << "layer " << l;
  }
  EXPECT_LT(relative(got.logits, want.logits), 3e-2);
  EXPECT_TRUE(at::equal(gotStreamed.logits, got.logits));
}

TEST(Gemma3Backbone, TheTrainableCopyRefusesIt) {
  TempDir dir;
  writeGemma3(dir / "m", kMixed);
  try {
    TrainableBackbone copy(dir / "m", /*maskId=*/-1);
    ADD_FAILURE() << "a Gemma-3 trainable copy was made";
  } catch (const ConfigError& error) {
    EXPECT_NE(std::string(error.what()).find("Gemma3ForCausalLM"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace strata::model
