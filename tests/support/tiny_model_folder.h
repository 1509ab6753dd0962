#pragma once
// Writes a small Hugging Face Llama folder (config.json, model.safetensors, tokenizer.json)
// for tests that need a model folder on disk. Weights are zeros: only the layout matters here.

#include <filesystem>
#include <string>

namespace strata::testing {

struct TinyLlamaShape {
  int64_t vocab = 32, hidden = 16, layers = 2, heads = 4, kvHeads = 2, mlp = 24;
  bool tied = false;
};

/** Creates `folder` with a consistent config.json and model.safetensors (F32 and BF16 tensors). */
void writeTinyLlamaFolder(const std::filesystem::path& folder, const TinyLlamaShape& shape = {});

/** The parameter count writeTinyLlamaFolder's weights hold, computed from the shape. */
int64_t tinyLlamaParameterCount(const TinyLlamaShape& shape);

}  // namespace strata::testing
