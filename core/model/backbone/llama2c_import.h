#pragma once
// Turns a llama2.c checkpoint (model.bin, any layout llama2c_checkpoint.h reads) and its
// tokenizer.bin into a normal Hugging Face Llama folder that Backbone::load and loadTokenizer
// read — and that transformers reads too:
//
//   config.json             LlamaForCausalLM, float32, rms_norm_eps 1e-5, rope_theta 10000
//   model.safetensors       HF tensor names; wq/wk rows permuted to HF's rotate_half layout
//   tokenizer.json          the same tokenizer as a HF BPE tokenizer (llama2c_tokenizer_json.h)
//   tokenizer_config.json   <s>/</s>/<unk>, add_bos_token
//   tokenizer.bin           the original, byte for byte, so run.c's exact tokenizer stays at hand
//
// Why the permutation: llama2.c rotates adjacent pairs (x[2i], x[2i+1]) of each head by angle
// θ_i; HF's rotate_half rotates (x[i], x[i + hd/2]). Reordering the rows of wq and wk within each
// head — pair member 0 of every pair first, then member 1 — makes the HF computation produce
// the same attention scores (q·k is invariant under the same permutation of q and k). This is
// `permute` of transformers' convert_llama_weights_to_hf.py.

#include <ATen/core/Tensor.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "model/backbone/llama2c_checkpoint.h"

namespace strata::model {

/**
 * transformers' convert_llama_weights_to_hf `permute(w, n_heads, dim1, dim2)`:
 * w.view(heads, rows / heads / 2, 2, cols).transpose(1, 2).reshape(rows, cols).
 * For wq use the query head count, for wk the key/value head count.
 */
at::Tensor permuteRotaryRows(const at::Tensor& weight, int64_t heads);

/** The checkpoint's tensors under Hugging Face Llama names, in the order HF writes them;
 *  lm_head.weight only when the classifier is not shared. */
std::vector<std::pair<std::string, at::Tensor>> huggingFaceLlamaTensors(
    const Llama2cCheckpoint& checkpoint);

/** config.json text for the checkpoint (vocab_size is the absolute value; tie_word_embeddings
 *  is the shared-classifier flag; bos 1, eos 2 as in llama2.c). */
std::string huggingFaceLlamaConfigJson(const Llama2cConfig& config);

struct Llama2cImportOptions {
  /** Replace an existing non-empty output folder (otherwise that is an error). */
  bool force = false;
};

struct Llama2cImportResult {
  Llama2cConfig config;
  std::filesystem::path folder;  ///< the folder written
  int64_t parameterCount = 0;    ///< unique parameters (a shared classifier counted once)
};

/**
 * Reads `modelBin` and `tokenizerBin`, checks that they belong together (the tokenizer must
 * have exactly the model's vocab_size tokens: FormatError naming the tokenizer file otherwise)
 * and writes the folder described above to `outFolder`.
 *
 * Atomic: everything is written into a temporary sibling folder, fsync'ed, and renamed into
 * place (its parent is created when missing and fsync'ed after the rename). An existing empty
 * folder is replaced; an existing non-empty one only with `force` (then swapped with
 * renameat2(RENAME_EXCHANGE) and the old contents removed), else strata::Error and nothing is
 * touched. On any failure the temporary folder is removed and `outFolder` is as it was.
 */
Llama2cImportResult importLlama2c(const std::filesystem::path& modelBin,
                                  const std::filesystem::path& tokenizerBin,
                                  const std::filesystem::path& outFolder,
                                  const Llama2cImportOptions& options = {});

}  // namespace strata::model
