#pragma once
// A tiny Hugging Face model folder, written by the test: config.json, a hand-written
// model.safetensors whose tensors match the config, and a minimal byte-level BPE tokenizer.json.

#include <QString>

namespace strata::test {

struct TinyLlama {
  int vocab = 32;
  int hidden = 16;
  int layers = 2;
  int heads = 4;
  int kvHeads = 2;
  int intermediate = 32;
};

/**
 * Writes the folder (created if needed). `architecture` goes into config.json's
 * "architectures" as is, so an unknown name makes a folder Strata must refuse.
 * Returns the total parameter count written.
 */
long long writeTinyLlamaFolder(const QString& folder, const TinyLlama& shape = {},
                               const QString& architecture = QStringLiteral("LlamaForCausalLM"));

}  // namespace strata::test
