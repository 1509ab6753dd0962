#pragma once
// What a bridge learns from: the frozen source model, its tokenizer and token stream, the layer
// l* it replaces, and the per-dimension statistics that normalise h_{l*}. Shared by the
// training recipe, the evaluation, hybrid generation and the bridgeability sweep.

#include <torch/torch.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "model/backbone.h"
#include "recipes/bridge_layer.h"  // bestLayerOfStore, for the recipe's callers
#include "recipes/pretrain_data.h"
#include "tokenizer/tokenizer.h"

namespace strata {

class JobContext;

/** Per-dimension mean and standard deviation of h_{l*} (float32 [d]). */
struct HiddenStatistics {
  torch::Tensor mean, std;
  std::string source;  ///< "store:<file>" or "windows:<n>"
  torch::Tensor normalise(const torch::Tensor& h) const { return (h - mean) / std; }
  torch::Tensor denormalise(const torch::Tensor& x) const { return x * std + mean; }
};

class BridgeSource {
 public:
  /** Loads the model (frozen) and its tokenizer. `layer` must be in 0..L. */
  BridgeSource(const std::filesystem::path& modelFolder, int64_t layer, const torch::Device& device);

  const Backbone& backbone() const { return *m_backbone; }
  const Tokenizer& tokenizer() const { return *m_tokenizer; }
  int64_t layer() const { return m_layer; }
  int64_t hiddenSize() const;

  /** Condition c = h_0 (input embeddings) and target h_{l*} of ids [B, T], without grad. */
  torch::Tensor condition(const torch::Tensor& ids) const;
  torch::Tensor target(const torch::Tensor& condition) const;
  /** Logits [B, T, vocab] of the frozen upper stack (layers l*+1..L, final norm, LM head)
   *  fed with h [B, T, d] at layer l*. */
  torch::Tensor upperLogits(const torch::Tensor& hidden) const;

  /** Statistics of layer l* from `store` (when it holds that layer), else from the first
   *  `windows` training windows of `tokens`. */
  HiddenStatistics statistics(const std::optional<std::filesystem::path>& store,
                              const std::vector<int32_t>& tokens, int64_t seqLen, uint64_t seed,
                              int64_t windows) const;

 private:
  std::unique_ptr<Backbone> m_backbone;
  std::unique_ptr<Tokenizer> m_tokenizer;
  int64_t m_layer;
  torch::Device m_device;
};

}  // namespace strata
