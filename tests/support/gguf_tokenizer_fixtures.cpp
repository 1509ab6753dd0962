#include "support/gguf_tokenizer_fixtures.h"

#include <cstdio>

namespace strata::testing {

TinyTokenizer tinySentencePiece(const std::string& architecture, const std::string& model) {
  TinyTokenizer t{architecture, model, "", {"<unk>", "<s>", "</s>"}, {2, 3, 3}, {0, 0, 0}, {}};
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    t.tokens.emplace_back(name);
    t.types.push_back(6);
    t.scores.push_back(0);
  }
  const std::vector<std::string> pieces = {"\u2581", "a", "b", "\u2581a", "ab", "\u2581ab"};
  for (size_t i = 0; i < pieces.size(); ++i) {
    t.tokens.push_back(pieces[i]);
    t.types.push_back(1);
    t.scores.push_back(-1.0f - static_cast<float>(i));
  }
  t.tokens.insert(t.tokens.end(), {"<tool>", "<ctl>"});
  t.types.insert(t.types.end(), {4, 3});
  t.scores.insert(t.scores.end(), {0, 0});
  return t;
}

TinyTokenizer tinyByteLevel(const std::string& architecture, const std::string& pre) {
  return {architecture,
          "gpt2",
          pre,
          {"a", "b", "\u0120", "ab", "\u0120a", "\u0120ab", "<|begin_of_text|>", "<think>", "x y"},
          {1, 1, 1, 1, 1, 1, 3, 4, 3},
          {},
          {"a b", "\u0120 a", "\u0120a b"}};
}

TinyTokenizer tinyGemma() {
  TinyTokenizer t{"gemma3", "llama", "default", {}, {}, {}, {}};
  const auto add = [&t](const std::string& token, int32_t type, float score) {
    t.tokens.push_back(token);
    t.types.push_back(type);
    t.scores.push_back(score);
  };
  for (const char* special : {"<pad>", "<eos>", "<bos>", "<unk>", "<mask>"}) add(special, 3, 0);
  for (const char* user : {"\n", "\n\n", "\t", "  ", "   "}) add(user, 4, 0);
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    add(name, 6, 0);
  }
  // Scores rising with the id, against the token order that Gemma's merges must follow.
  float score = 0;
  for (const char* piece : {"\u2581", "a", "b", "ab", "\u2581a", "\u2581ab", "ba", "\u2581\u2581"})
    add(piece, 1, score += 1);
  add("<start_of_turn>", 3, 0);
  return t;
}

GgufTestFile tinyTokenizerFile(const TinyTokenizer& t) {
  GgufTestFile file;
  const std::string& arch = t.architecture;
  file.set("general.architecture", ggufString(arch))
      .set(arch + ".block_count", ggufUInt32(1))
      .set(arch + ".context_length", ggufUInt32(64))
      .set(arch + ".embedding_length", ggufUInt32(8))
      .set(arch + ".feed_forward_length", ggufUInt32(16))
      .set(arch + ".attention.head_count", ggufUInt32(2))
      .set(arch + ".attention.layer_norm_rms_epsilon", ggufFloat32(1e-5f))
      .set("tokenizer.ggml.model", ggufString(t.model));
  if (!t.pre.empty()) file.set("tokenizer.ggml.pre", ggufString(t.pre));
  file.set("tokenizer.ggml.tokens", ggufStringArray(t.tokens));
  if (!t.types.empty()) file.set("tokenizer.ggml.token_type", ggufInt32Array(t.types));
  if (!t.scores.empty()) file.set("tokenizer.ggml.scores", ggufFloat32Array(t.scores));
  if (!t.merges.empty()) file.set("tokenizer.ggml.merges", ggufStringArray(t.merges));
  const auto rows = static_cast<int64_t>(t.tokens.size());
  file.addF32Tensor("token_embd.weight", {8, rows}, std::vector<float>(8 * t.tokens.size()));
  return file;
}

}  // namespace strata::testing
