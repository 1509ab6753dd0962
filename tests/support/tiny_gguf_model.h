#pragma once
// A complete, tiny GGUF model written by tests: llama architecture (1 block, width 32, 2 query
// heads and 1 key/value head, MLP 64, 8 tokens), float32 weights with the MLP in Q8_0, and a
// gpt2-style tokenizer in the metadata — everything Strata's GGUF import needs, in a few KB.

#include <filesystem>

namespace strata::testing {

/** Writes the model to `file` (its folder must exist). Throws std::runtime_error. */
void writeTinyLlamaGguf(const std::filesystem::path& file);

}  // namespace strata::testing
