#pragma once
// A complete, tiny GGUF model written by tests: llama architecture (1 or more blocks, width 32, 2
// query heads and 1 key/value head, MLP 64, 8 tokens), float32 weights with the MLP in Q8_0, and a
// gpt2-style tokenizer in the metadata — everything Strata's GGUF import needs, in a few KB.

#include <filesystem>

namespace strata::testing {

/** Writes the model with `blocks` blocks to `file` (its folder must exist). Its tokenizer knows
 *  the letters a, b, c and the space only. Throws std::runtime_error. */
void writeTinyLlamaGguf(const std::filesystem::path& file, int blocks = 1);

}  // namespace strata::testing
