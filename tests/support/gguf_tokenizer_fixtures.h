#pragma once
// Tiny GGUF files that hold only a tokenizer (and what transformers needs to open them: a few
// architecture keys and one embedding tensor), one per tokenizer flavour
// core/io/gguf/gguf_tokenizer converts. Shared by tests/core/io/gguf/gguf_tokenizer_test.cpp
// (expectations written by hand) and gguf_tokenizer_reference_test.cpp (the same files against
// transformers).

#include <cstdint>
#include <string>
#include <vector>

#include "support/gguf_test_file.h"

namespace strata::testing {

/** The tokenizer metadata of a tiny file; empty vectors are left out of the file. */
struct TinyTokenizer {
  std::string architecture;  ///< general.architecture: "llama", "gemma3", "phi3", "qwen2", ...
  std::string model;         ///< tokenizer.ggml.model: "gpt2", "llama", "gemma4", ...
  std::string pre;           ///< tokenizer.ggml.pre; empty: none
  std::vector<std::string> tokens;
  std::vector<int32_t> types;  ///< llama.cpp token types: 1 normal, 3 control, 4 user, 6 byte
  std::vector<float> scores;
  std::vector<std::string> merges;
};

/** A SentencePiece-style vocabulary: <unk> <s> </s>, the 256 <0xNN> byte tokens, then
 *  "▁" "a" "b" "▁a" "ab" "▁ab" (scores -1 … -6), "<tool>" (user-defined), "<ctl>" (control).
 *  No merges: they are derived from the scores. */
TinyTokenizer tinySentencePiece(const std::string& architecture, const std::string& model);

/** A byte-level vocabulary: a b Ġ ab Ġa Ġab, "<|begin_of_text|>" (control), "<think>"
 *  (user-defined), "x y" (control, but spelled outside the byte alphabet); merges "a b",
 *  "Ġ a", "Ġa b". No "<|endoftext|>". */
TinyTokenizer tinyByteLevel(const std::string& architecture, const std::string& pre);

/** A Gemma-style vocabulary: <pad> <eos> <bos> <unk> <mask> (control); user-defined "\n",
 *  "\n\n", "\t" and whitespace runs stored as real spaces ("  ", "   "); the byte tokens; then
 *  "▁" "a" "b" "ab" "▁a" "▁ab" "ba" "▁▁" with scores rising 1 … 8 (so "▁▁" is both a respelled
 *  and a real token); "<start_of_turn>" (control). No merges. */
TinyTokenizer tinyGemma();

/** The GGUF file: the tokenizer's keys, the architecture keys transformers reads to build a
 *  config, and token_embd.weight (float32, 8 wide). Add special token ids and flags with set(). */
GgufTestFile tinyTokenizerFile(const TinyTokenizer& tokenizer);

}  // namespace strata::testing
