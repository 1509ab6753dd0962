#pragma once
// A pretrained transformer read from a Hugging Face folder, run block by block in LibTorch:
// Llama, Qwen2, Qwen3, GPT-2, GPT-NeoX (Pythia), Gemma-3. Everything computes in float32 (or,
// when the options ask, bfloat16), whatever the dtype on disk, on the device the options name.
//
// Layer numbering follows the papers and Hugging Face's hidden_states: h_0 is the embedding
// output (Gemma-3's already scaled by √d), h_l the output of block l (1-based; HF module
// layers[l-1]), h_L the last block's output BEFORE the final norm (HF's hidden_states[L] is after
// it: use finalNorm()).

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "io/hf/hf_config.h"
#include "model/backbone/attention_options.h"

namespace strata {

class JobContext;

}  // namespace strata

namespace strata::model {

struct BackboneOptions {
  /** Where weights live and passes run. A CPU-only LibTorch accepts only the CPU. */
  at::Device device = at::kCPU;
  /** Keep no block resident: each block's weights are read from the mapped safetensors when
   *  it runs and dropped after (float32 CPU weights are not even copied). Embedding rows and
   *  the LM head are read on use too. Results are identical to the resident mode. */
  bool streamLayers = false;
  /** at::kFloat (the default) or at::kBFloat16. bfloat16: weights are converted once (as each
   *  block streams in, when streaming), hidden states, norm outputs and logits are bfloat16,
   *  and RMSNorm statistics, RoPE angles and the attention softmax stay float32, as
   *  transformers computes a model loaded with torch_dtype=bfloat16. */
  at::ScalarType computeDType = at::kFloat;
};

/** What capture() computes and keeps. Hidden states come in the compute dtype. */
struct CaptureRequest {
  AttentionOptions attention;
  /** Keep h_0 … h_L in the result; false with onLayer to stream layer by layer. */
  bool keepHidden = true;
  bool finalNorm = false;  ///< also the final-norm output
  bool logits = false;     ///< also the logits (implies computing the final norm)
  /** Called with (l, h_l) for l = 0 … L, in order, on the calling thread, as each is ready. */
  std::function<void(int64_t layer, const at::Tensor& hidden)> onLayer;
  /** Optional: progress per layer, and cancellation checked between blocks (CancelledError). */
  JobContext* job = nullptr;
};

struct CaptureResult {
  std::vector<at::Tensor> hidden;  ///< L + 1 tensors [B, T, d] when keepHidden; else empty
  at::Tensor finalNorm;            ///< [B, T, d] when asked (or when logits were)
  at::Tensor logits;               ///< [B, T, vocab] when asked
};

/**
 * A loaded backbone. Immutable after load(): const methods may run concurrently. Weights are
 * never trained here (requires_grad false), but embed/runLayers/finalNorm/logits run under
 * whatever grad mode the caller sets, so gradients flow to their inputs (a bridge's output fed
 * to the upper layers); capture() runs in inference mode.
 * Shapes: ids [B, T] int64; hidden states [B, T, d] in options().computeDType on
 * options().device.
 */
class Backbone {
 public:
  /**
   * Reads `folder`/config.json and the weights (model.safetensors or a sharded index),
   * checking every tensor's name, dtype and shape before anything runs. Throws ConfigError
   * (unsupported activation, rope scaling or rotary_pct), FormatError naming the tensor at
   * fault, IoError; ConfigError also for a compute dtype other than float32 or bfloat16.
   */
  static std::unique_ptr<Backbone> load(const std::filesystem::path& folder,
                                        BackboneOptions options = {});
  ~Backbone();
  Backbone(const Backbone&) = delete;
  Backbone& operator=(const Backbone&) = delete;

  const io::ModelConfig& config() const;
  const BackboneOptions& options() const;
  int64_t numLayers() const;
  /** Oddities found at load (tensors no pass reads), one readable line each. */
  const std::vector<std::string>& warnings() const;

  /** h_0: token embeddings (plus learned positions for GPT-2; times √d for Gemma-3). Throws
   * strata::Error for an id outside the vocabulary or a position past GPT-2's n_positions. */
  at::Tensor embed(const at::Tensor& ids, const AttentionOptions& attention = {}) const;
  /**
   * Maps h_from to h_to by running blocks from+1 … to (HF layers[from … to−1]);
   * 0 ≤ from ≤ to ≤ L, and from == to returns `hidden` unchanged. `attention` must describe
   * the same batch as the one embedded (same padding and positions).
   */
  at::Tensor runLayers(const at::Tensor& hidden, int64_t fromLayer, int64_t toLayer,
                       const AttentionOptions& attention = {}) const;
  /** `attention` resolved for a [batch, length] batch: build it once to run the same batch
   *  through the blocks in several runLayers() calls (capture goes layer by layer). */
  PreparedAttention prepare(const AttentionOptions& attention, int64_t batch, int64_t length) const;
  /** runLayers() with the mask and rotary tables prepare() built for this batch's shape. */
  at::Tensor runLayers(const at::Tensor& hidden, int64_t fromLayer, int64_t toLayer,
                       const PreparedAttention& attention) const;
  /** The final norm (model.norm / ln_f / final_layer_norm) of h_L. */
  at::Tensor finalNorm(const at::Tensor& hidden) const;
  /** The LM head alone, applied to finalNorm()'s output: [B, T, vocab] (soft-capped when
   *  config.json sets final_logit_softcapping). */
  at::Tensor logits(const at::Tensor& normed) const;
  /** h_0 … h_L of every token, and optionally the final norm and logits, in one pass. */
  CaptureResult capture(const at::Tensor& ids, const CaptureRequest& request = {}) const;

 private:
  struct State;
  explicit Backbone(std::unique_ptr<State> state);
  std::unique_ptr<State> m_state;
};

}  // namespace strata::model
