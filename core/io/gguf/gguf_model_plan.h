#pragma once
// How a GGUF model becomes a Hugging Face folder: the config.json that its metadata describes
// and, for every tensor, its Hugging Face name and what must be undone of llama.cpp's
// conversion. Mirrors transformers' own GGUF loading (integrations/ggml.py's config mapping,
// modeling_gguf_pytorch_utils.py's tensor processors), which is the reference it is tested
// against.
//
// Where transformers drops what llama.cpp uses, llama.cpp (the files' producer) is followed:
// the head width from `<arch>.attention.key_length`, and RoPE scaling — `<arch>.rope.scaling.*`
// and Llama 3.1's `rope_freqs.weight`, read back into a llama3 rope_scaling (docs/models.md,
// "GGUF architectures").
//
// The shared steps are here; each architecture's GGUF names, fixes and config.json are in its
// descriptor (io/arch/<family>.cpp, ArchitectureSpec::planGguf). Supported
// `general.architecture`: supportedGgufArchitectures().

#include <cstdint>
#include <string>
#include <vector>

#include "io/gguf/gguf_file.h"

namespace strata::io {

/** What is done to a dequantised tensor before it is written under its Hugging Face name. */
enum class GgufTensorFix {
  None,
  /** llama.cpp's convert_hf_to_gguf `permute` of q_proj / k_proj rows (interleaved RoPE pairs),
   *  undone: within each head, row 2i+j goes back to row j·(head_dim/2)+i. */
  UnpermuteRotaryRows,
  /** llama.cpp stores Gemma's RMSNorm weight w as 1 + w (ggml multiplies by the weight alone);
   *  transformers subtracts the 1 again in float32, so does Strata. */
  SubtractOne,
};

struct GgufTensorPlan {
  std::string ggufName;
  std::string hfName;
  GgufTensorFix fix = GgufTensorFix::None;
  int64_t heads = 0;  ///< head count for UnpermuteRotaryRows
};

struct GgufModelPlan {
  std::string architecture;  ///< general.architecture
  std::string configJson;    ///< config.json text
  std::string generationConfigJson;
  std::vector<GgufTensorPlan> tensors;  ///< in the order Hugging Face writes them
  std::vector<std::string> warnings;    ///< tensors of the file that are not used, one line each
};

/** The architectures planGgufModel knows, comma-separated, for messages. */
std::string supportedGgufArchitectures();

/**
 * Reads the model description of `gguf`. Throws FormatError naming the file and the key
 * (missing hyper-parameter, head count that does not divide the width, ...) or the tensor
 * (missing, or of a shape other than the metadata implies), and ConfigError for an
 * architecture it does not know (listing the supported ones).
 */
GgufModelPlan planGgufModel(const GgufFile& gguf);

}  // namespace strata::io
