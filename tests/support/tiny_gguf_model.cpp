#include "support/tiny_gguf_model.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "support/gguf_test_file.h"

namespace strata::testing {
namespace {

constexpr int64_t kWidth = 32, kHeads = 2, kKvHeads = 1, kHeadDim = 16, kFfn = 64, kVocab = 8;

std::vector<float> values(int64_t count, float phase) {
  std::vector<float> v(count);
  for (int64_t i = 0; i < count; ++i) v[i] = 0.1f * std::sin(0.37f * i + phase);
  return v;
}

/** Q8_0 blocks of `count` elements: f16 scale 1/64, then int8 quants (i mod 17 − 8). */
std::string q80(int64_t count) {
  std::string data;
  for (int64_t block = 0; block < count / 32; ++block) {
    data += '\x00';
    data += '\x24';  // 0x2400 = 1/64 in float16
    for (int i = 0; i < 32; ++i) data += static_cast<char>((block * 32 + i) % 17 - 8);
  }
  return data;
}

}  // namespace

void writeTinyLlamaGguf(const std::filesystem::path& file, int blocks) {
  GgufTestFile f;
  f.set("general.architecture", ggufString("llama"))
      .set("general.name", ggufString("tiny llama"))
      .set("llama.block_count", ggufUInt32(static_cast<uint32_t>(blocks)))
      .set("llama.context_length", ggufUInt32(64))
      .set("llama.embedding_length", ggufUInt32(kWidth))
      .set("llama.feed_forward_length", ggufUInt32(kFfn))
      .set("llama.attention.head_count", ggufUInt32(kHeads))
      .set("llama.attention.head_count_kv", ggufUInt32(kKvHeads))
      .set("llama.attention.layer_norm_rms_epsilon", ggufFloat32(1e-5f))
      .set("llama.rope.freq_base", ggufFloat32(10000.0f))
      .set("llama.rope.dimension_count", ggufUInt32(kHeadDim))
      .set("tokenizer.ggml.model", ggufString("gpt2"))
      .set("tokenizer.ggml.pre", ggufString("default"))
      .set("tokenizer.ggml.tokens",
           ggufStringArray({"<|endoftext|>", "a", "b", "c", "\xc4\xa0", "ab",
                            "\xc4\xa0"
                            "a",
                            "bc"}))
      .set("tokenizer.ggml.token_type", ggufInt32Array({3, 1, 1, 1, 1, 1, 1, 1}))
      .set("tokenizer.ggml.merges", ggufStringArray({"a b", "\xc4\xa0 a", "b c"}))
      .set("tokenizer.ggml.bos_token_id", ggufUInt32(0))
      .set("tokenizer.ggml.eos_token_id", ggufUInt32(0));
  f.addF32Tensor("token_embd.weight", {kWidth, kVocab}, values(kWidth * kVocab, 0.1f));
  for (int b = 0; b < blocks; ++b) {
    const std::string p = "blk." + std::to_string(b) + ".";
    const float phase = 0.1f * b;
    f.addF32Tensor(p + "attn_norm.weight", {kWidth}, values(kWidth, 1.0f + phase));
    f.addF32Tensor(p + "attn_q.weight", {kWidth, kHeads * kHeadDim},
                   values(kWidth * kHeads * kHeadDim, 0.2f + phase));
    f.addF32Tensor(p + "attn_k.weight", {kWidth, kKvHeads * kHeadDim},
                   values(kWidth * kKvHeads * kHeadDim, 0.3f + phase));
    f.addF32Tensor(p + "attn_v.weight", {kWidth, kKvHeads * kHeadDim},
                   values(kWidth * kKvHeads * kHeadDim, 0.4f + phase));
    f.addF32Tensor(p + "attn_output.weight", {kHeads * kHeadDim, kWidth},
                   values(kWidth * kHeads * kHeadDim, 0.5f + phase));
    f.addF32Tensor(p + "ffn_norm.weight", {kWidth}, values(kWidth, 0.6f + phase));
    f.addTensor({p + "ffn_gate.weight", {kWidth, kFfn}, 8, q80(kWidth * kFfn)});
    f.addTensor({p + "ffn_up.weight", {kWidth, kFfn}, 8, q80(kWidth * kFfn)});
    f.addTensor({p + "ffn_down.weight", {kFfn, kWidth}, 8, q80(kWidth * kFfn)});
  }
  f.addF32Tensor("output_norm.weight", {kWidth}, values(kWidth, 0.7f));
  f.write(file);
}

}  // namespace strata::testing
