#pragma once
// Reads a checkpoint's tensors into BlockWeights / OuterWeights in the compute dtype (float32
// or bfloat16) on the target device, whatever the dtype on disk (F32, F16, BF16, F64), from
// safetensors or, for a model folder of a GGUF file (io/gguf/gguf_weights.h), from the GGUF file
// itself, dequantised tensor by tensor (a tensor's rows converted piece by piece). Every
// expected tensor's presence, dtype and shape is checked once, from the headers, when the
// loader is made, so that a streamed pass cannot fail half-way on a malformed file.

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/gguf/gguf_weights.h"
#include "io/hf/hf_config.h"
#include "io/hf/sharded_checkpoint.h"
#include "model/backbone/block_weights.h"
#include "model/backbone/weight_layout.h"

namespace strata::model {

/**
 * Thread-safety: const methods may run concurrently (WeightFiles is thread-safe).
 * Mappings: a shard stays mapped only while a tensor loaded from it holds it (see
 * WeightFiles::shard), so dropping a streamed block releases its pages.
 */
class WeightLoader {
 public:
  /**
   * Opens `folder`'s weights and checks them against `config`; tensors are handed out as
   * `dtype` on `device`. `borrowMapped`: tensors already stored as `dtype` and loaded for the
   * CPU may be read-only views into the mapping instead of copies (streaming: nothing is
   * copied, the OS pages weights in and out). Throws FormatError naming the tensor that is
   * missing, not floating-point, or of the wrong shape.
   */
  WeightLoader(const std::filesystem::path& folder, const io::ModelConfig& config,
               at::Device device, at::ScalarType dtype, bool borrowMapped);

  const WeightLayout& layout() const { return m_layout; }
  /** Where the weights are read from: the folder, or the GGUF file it reads in place. */
  const std::filesystem::path& source() const;
  /** The GGUF file read in place, or nullptr for safetensors. */
  const io::GgufWeights* gguf() const { return m_gguf.get(); }
  /** Checkpoint tensors no forward pass reads (and that are not known buffers), one line each. */
  const std::vector<std::string>& warnings() const { return m_warnings; }

  /** Block `layer` (0-based, as in Hugging Face names). */
  BlockWeights block(int64_t layer) const;
  /**
   * block(layer), a GGUF's tensors dequantised on the CPU into `recycled`'s memory where a
   * tensor there has the same shape and dtype and nothing else holds it; safetensors and other
   * devices ignore it. Streaming an 8B model converts 0.87 GB of float32 a block: fresh memory
   * for each was ~6 million page faults a capture, a fifth of its CPU time in the kernel.
   */
  BlockWeights block(int64_t layer, BlockWeights recycled) const;
  /**
   * Block `layer` of a GGUF read in place, on `device`: each tensor's quantised bytes are copied
   * there (through pinned memory to a GPU, on the caller's current stream) and dequantised by
   * LibTorch operations on the device (device_dequantize.h), so a streamed block crosses PCIe at
   * its quantised size; types without a device kernel are dequantised here and copied. The same
   * values as block(). Throws std::logic_error for a safetensors source.
   */
  BlockWeights blockOn(int64_t layer, at::Device device) const;
  /** One tensor of a GGUF read in place, dequantised on `device` as blockOn() does. */
  at::Tensor tensorOn(const std::string& name, at::Device device) const;
  /** Every tensor outside the blocks (the tied head is the token embedding itself). */
  OuterWeights outer() const;
  /**
   * outer() without the token table and the head, the [vocab, d] matrices: a capture reads a few
   * thousand of the table's rows (rows()) and never the head, and in float32 they are the bulk of
   * a small model (63 % of Gemma-3-270M's parameters, 28 % of Qwen2.5-0.5B's).
   */
  OuterWeights outerWithoutTables() const;
  /** One tensor by name, in the loader's dtype on its device. */
  at::Tensor tensor(const std::string& name) const;
  /**
   * Rows `indices` (int64, any shape) of the matrix `name`: [indices..., columns], in the
   * loader's dtype on its device. Converts only those rows, so embedding lookups stream cheaply.
   */
  at::Tensor rows(const std::string& name, const at::Tensor& indices) const;

 private:
  void check(const std::string& name, const std::vector<int64_t>& shape) const;
  void collectUnused(const io::ModelConfig& config);
  bool has(const std::string& name) const;
  std::vector<std::string> tensorNames() const;
  at::Tensor mapped(const std::string& name) const;
  /** tensor(name), dequantised into `into` where a GGUF is converted on the CPU and `into` is
   *  reusable (see block()); every other source ignores it. */
  at::Tensor tensor(const std::string& name, at::Tensor into) const;
  /** `weight` dequantised on the CPU, into `into` when reusable (see block()), then moved to
   *  the loader's device. */
  at::Tensor dequantised(const io::GgufWeight& weight, at::Tensor into = {}) const;
  at::Tensor dequantisedOn(const io::GgufWeight& weight, at::Device device) const;

  std::optional<io::WeightFiles> m_files;         // safetensors
  std::shared_ptr<const io::GgufWeights> m_gguf;  // or a GGUF file read in place
  WeightLayout m_layout;
  int64_t m_numLayers = 0;
  at::Device m_device;
  at::ScalarType m_dtype;
  bool m_borrowMapped = false;
  std::vector<std::string> m_warnings;
};

}  // namespace strata::model
