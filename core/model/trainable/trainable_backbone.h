#pragma once
// A pretrained Hugging Face model of the supported architectures but Gemma-3 (Llama, Qwen2,
// Qwen3, GPT-2, GPT-NeoX) as a trainable torch module: every checkpoint tensor becomes a float32
// parameter, and the forward pass runs the very block functions the frozen Backbone runs
// (model/backbone/blocks.h), so a fresh copy computes exactly what the Backbone computes. Attention
// is causal or bidirectional per call: the student of REPR-ALIGN is this module run with causal =
// false.
//
// [MASK]: when the tokenizer has no mask token, one is added at id = the model's vocabulary
// size, as one extra embedding row (a separate parameter, initialised to the mean embedding,
// trainable even when the embeddings are frozen). The logits cover the model's own vocabulary
// only: [MASK] is never predicted.

#include <torch/torch.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "io/hf/hf_config.h"
#include "model/backbone/activation.h"
#include "model/backbone/attention_options.h"
#include "model/backbone/block_weights.h"

namespace strata::model {

struct TrainableForward {
  /** The L + 1 hidden states Hugging Face returns: [0] the embedding output, [l] block l's
   *  output for l < L, [L] the last block's output after the final norm. Empty unless asked. */
  std::vector<torch::Tensor> hidden;
  /** The last block's output before the final norm (h_L of the residual stream, as capture
   *  stores it); undefined unless the hidden states were asked for. */
  torch::Tensor preNorm;
  torch::Tensor logits;  ///< [B, T, vocab()]
};

class TrainableBackboneImpl : public torch::nn::Module {
 public:
  /**
   * Reads `folder` (config.json + safetensors, sharded or not). `maskId`: the tokenizer's mask
   * token when it has one (< the vocabulary), or −1 to add [MASK] at id vocab(). Throws what
   * Backbone::load throws for a bad folder, and ConfigError for Gemma-3 (not trainable yet).
   */
  TrainableBackboneImpl(const std::filesystem::path& folder, int64_t maskId);

  const io::ModelConfig& config() const { return m_config; }
  int64_t vocab() const { return m_config.vocabSize; }
  int64_t maskId() const { return m_maskId; }
  bool addedMaskToken() const { return m_maskEmbedding.defined(); }

  /** ids [B, T] int64 (mask id allowed); std::invalid_argument for an id outside the model. */
  TrainableForward forward(const torch::Tensor& ids, const AttentionOptions& attention,
                           bool keepHidden = true);

  /** Token embedding, learned positions and LM head stop training (the added [MASK] row does
   *  not). */
  void freezeEmbeddings();
  /** The MLP projections of every block (gate/up/down or fc/proj, with biases). */
  void freezeMlps();
  /**
   * Forgets the pretrained weights (the random-init "from scratch" student): every matrix
   * (embeddings, projections, LM head) ~ N(0, 0.02²) (Hugging Face's default
   * initializer_range), every bias 0, every norm scale 1; an added [MASK] row becomes the mean
   * of the new embeddings. Deterministic for a seed (its own generator, not torch's global one).
   * Call before moving the module to another device.
   */
  void reinitialise(uint64_t seed);
  /** The parameters that still train, split into matrices (weight decay) and the rest. */
  std::pair<std::vector<torch::Tensor>, std::vector<torch::Tensor>> trainableParameters() const;
  int64_t parameterCount(bool trainableOnly) const;

  /** Every tensor under its Hugging Face name, [MASK] row appended to the embedding (and as a
   *  zero row of an untied LM head) when it was added: a checkpoint of vocab() + 1 tokens. */
  std::vector<std::pair<std::string, torch::Tensor>> huggingFaceTensors() const;

 private:
  torch::Tensor embed(const torch::Tensor& ids, const AttentionOptions& attention) const;
  torch::Tensor finalNorm(const torch::Tensor& hidden) const;

  io::ModelConfig m_config;
  Activation m_activation = Activation::Silu;
  std::vector<BlockWeights> m_blocks;  // handles of the registered parameters
  OuterWeights m_outer;
  bool m_tiedHead = false;
  std::vector<std::pair<std::string, torch::Tensor>> m_named;  // HF name → parameter
  torch::Tensor m_maskEmbedding;                               // [1, d] when [MASK] was added
  torch::Tensor m_inverseFrequencies;                          // RoPE; undefined for GPT-2
  int64_t m_maskId = 0;
};
TORCH_MODULE(TrainableBackbone);

}  // namespace strata::model
