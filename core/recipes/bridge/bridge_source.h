#pragma once
// What a bridge learns from: the frozen source model, its tokenizer and token stream, the layer
// l* it replaces, and the per-dimension statistics that normalise h_{l*} and h_0. Shared by the
// training recipe, the evaluation, hybrid generation and the bridgeability sweep.

#include <torch/torch.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "model/backbone/backbone.h"
#include "recipes/bridge/bridge_layer.h"  // bestLayerOfStore, for the recipe's callers
#include "recipes/bridge/bridge_store_data.h"
#include "recipes/pretrain/pretrain_data.h"
#include "tokenizer/tokenizer.h"

namespace strata {

class JobContext;

}  // namespace strata

namespace strata::recipes {

/** Per-dimension mean and standard deviation of h_{l*} (float32 [d]). */
struct HiddenStatistics {
  torch::Tensor mean, std;
  std::string source;  ///< "store:<file>" or "windows:<n>"
  torch::Tensor normalise(const torch::Tensor& h) const { return (h - mean) / std; }
  torch::Tensor denormalise(const torch::Tensor& x) const { return x * std + mean; }
};

/** Both ends of the bridge, normalised per dimension: the target h_{l*} (the denoiser's data
 *  space) and the condition h_0, standardised before it enters the denoiser (raw embeddings can
 *  be ~1e-2, e.g. Llama-3's, and the bridge process starts from the condition). */
struct BridgeStatistics {
  HiddenStatistics target, condition;
  /** The denoiser's condition for raw h_0: standardised, or zeros when `conditioned` is false
   *  (unconditional embedding diffusion: the clean h_0 never reaches the denoiser). */
  torch::Tensor conditionInput(const torch::Tensor& h0, bool conditioned) const {
    return conditioned ? condition.normalise(h0) : torch::zeros_like(h0);
  }
};

/** Windows first .. first + rows − 1 of those the statistics are computed from when there is
 *  no store: training windows of seqLen tokens of `tokens`, with a seed of their own. */
torch::Tensor statisticsWindows(const std::vector<int32_t>& tokens, int64_t seqLen, uint64_t seed,
                                int64_t first, int64_t rows);

class BridgeSource {
 public:
  /** Loads the model (frozen) and its tokenizer. `layer` must be in 0..L. `streamLayers`: what
   *  the caller's plan decided; without one the source is planned alone. */
  BridgeSource(const std::filesystem::path& modelFolder, int64_t layer, const torch::Device& device,
               std::optional<bool> streamLayers = std::nullopt);

  const model::Backbone& backbone() const { return *m_backbone; }
  const tokenizer::Tokenizer& tokenizer() const { return *m_tokenizer; }
  int64_t layer() const { return m_layer; }
  int64_t hiddenSize() const;

  /** Condition c = h_0 (input embeddings) and target h_{l*} of ids [B, T], without grad. */
  torch::Tensor condition(const torch::Tensor& ids) const;
  torch::Tensor target(const torch::Tensor& condition) const;
  /** Condition and target of ids [B, T] as training windows: they start a context, so their
   *  position 0 (the attention sink) is the source model's own (exactPositions = 1). */
  BridgeWindows windows(const torch::Tensor& ids) const;
  /** Logits [B, T, vocab] of the frozen upper stack (layers l*+1..L, final norm, LM head)
   *  fed with h [B, T, d] at layer l*. */
  torch::Tensor upperLogits(const torch::Tensor& hidden) const;

  /** Statistics of layers l* and 0 from `store` (FormatError when it lacks either), else from
   *  the first `windows` training windows of `tokens`, without their position 0 (the attention
   *  sink, BridgeWindows::exactPositions). */
  BridgeStatistics statistics(const std::optional<std::filesystem::path>& store,
                              const std::vector<int32_t>& tokens, int64_t seqLen, uint64_t seed,
                              int64_t windows) const;

 private:
  std::unique_ptr<model::Backbone> m_backbone;
  std::unique_ptr<tokenizer::Tokenizer> m_tokenizer;
  int64_t m_layer;
  torch::Device m_device;
};

}  // namespace strata::recipes
