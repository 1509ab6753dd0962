#pragma once
// Karpathy's llama2.c checkpoints (model.bin) read into float32 tensors in llama2.c's own layout:
// the legacy v0 file of run.c (7 int32 header, a negative vocab_size meaning an unshared
// classifier) and the versioned files of export.py ("ak42" magic, 256-byte header): version 1
// (float32) and version 2 (int8 Q8_0 groups with float32 scales, dequantised here).
// Nothing is converted: wq/wk rows keep llama2.c's interleaved RoPE pairs (see llama2c_import.h).

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <filesystem>

namespace strata::model {

/** The header of a llama2.c checkpoint. */
struct Llama2cConfig {
  int version = 0;        ///< 0 = legacy run.c layout, 1 = float32, 2 = Q8_0
  int64_t dim = 0;        ///< transformer width
  int64_t hiddenDim = 0;  ///< SwiGLU width (w1/w3 rows)
  int64_t numLayers = 0;
  int64_t numHeads = 0;
  int64_t numKeyValueHeads = 0;
  int64_t vocabSize = 0;         ///< always positive here (v0's sign is sharedClassifier)
  int64_t seqLen = 0;            ///< context length the model was trained with
  bool sharedClassifier = true;  ///< the classifier is the token embedding
  int64_t groupSize = 0;         ///< Q8_0 group size (version 2 only)

  int64_t headSize() const { return dim / numHeads; }
  int64_t kvDim() const { return numKeyValueHeads * headSize(); }
};

/** The weights in llama2.c's layout, float32 CPU tensors stacked over layers. Linear weights
 *  are [out, in] as in PyTorch's nn.Linear (and as run.c's matmul reads them). */
struct Llama2cWeights {
  at::Tensor tokenEmbedding;  ///< [vocab, dim]
  at::Tensor rmsAttention;    ///< [layers, dim]
  at::Tensor wq;              ///< [layers, dim, dim]; rows in interleaved RoPE pairs per head
  at::Tensor wk;              ///< [layers, kvDim, dim]; same
  at::Tensor wv;              ///< [layers, kvDim, dim]
  at::Tensor wo;              ///< [layers, dim, dim]
  at::Tensor rmsFfn;          ///< [layers, dim]
  at::Tensor w1;              ///< [layers, hidden, dim] gate
  at::Tensor w2;              ///< [layers, dim, hidden] down
  at::Tensor w3;              ///< [layers, hidden, dim] up
  at::Tensor rmsFinal;        ///< [dim]
  at::Tensor classifier;      ///< [vocab, dim]; undefined when shared with tokenEmbedding
};

struct Llama2cCheckpoint {
  Llama2cConfig config;
  Llama2cWeights weights;
};

/**
 * Reads a llama2.c model.bin of any of the three layouts. The header is validated (positive
 * sizes, heads dividing dim, an even head size, kv heads dividing heads, a Q8_0 group size
 * dividing every quantised tensor) and the file size must be exactly what the header implies
 * (for v0 the legacy freq_cis_real/imag tables, which are skipped, are part of it): a truncated
 * or oversized file is a FormatError naming the file with the expected and the found size.
 * Nothing is read out of bounds. IoError when the file cannot be opened or mapped.
 */
Llama2cCheckpoint readLlama2cCheckpoint(const std::filesystem::path& file);

/** The magic number that starts export.py's versioned files: "ak42" as a little-endian uint32. */
constexpr uint32_t kLlama2cMagic = 0x616b3432;

}  // namespace strata::model
