#pragma once
// The DiHAL bridge's denoiser (DESIGN.md "bridge"): a small causal transformer that maps the
// noised hidden states x_t, the noise level t and the condition c (the source model's input
// embeddings of the same tokens) to the diffusion model's output (x̂0, ε̂ or v̂ — the recipe
// decides what it means). Position i never sees x_t or c at positions > i, so the bridge can
// stand in for the causal layers it replaces.
//
// Time enters every block by adaLN (DiT, Peebles & Xie 2023): each pre-norm's LayerNorm has no
// affine of its own and takes shift and scale from the time embedding instead. A time vector
// added to the tokens once would have to survive every residual update; adaLN lets each block
// re-read the noise level (DiT found it clearly better than t as an input token), for 2·width²
// parameters per sublayer. The position embedding is learned, started from sinusoids.
//
// The output layer starts at zero (as DiT and most diffusion models do), so training starts
// from predicting 0 — for x0-prediction of normalised targets, the mean — rather than noise.
//
// The condition is used as given; LayerNorm on it lost too much (mean and norm of each token),
// so a recipe whose embeddings are far from unit scale should standardise them first.
//
// Threading: a module is used from one thread at a time.

#include <torch/torch.h>

#include <cstdint>
#include <string>

namespace strata::model {

/** Shape of a BridgeDenoiser. */
struct BridgeDenoiserConfig {
  int64_t dataDim = 0;  ///< d of x_t (hidden size of the source model)
  int64_t condDim = 0;  ///< d of the condition (embedding size of the source model)
  int64_t width = 256;  ///< transformer width; even, divisible by heads
  int64_t depth = 4;    ///< blocks
  int64_t heads = 4;
  int64_t mlpRatio = 4;  ///< MLP hidden = mlpRatio·width
  /// "concat": the input is Linear([x_t, c]); "cross": Linear(x_t), and every block
  /// cross-attends (causally) to Linear(c) + positions.
  std::string conditioning = "concat";
  int64_t maxPositions = 2048;  ///< learned positions; longer inputs are rejected
  /** Every parameter of a BridgeDenoiser of this shape, without building one. */
  int64_t parameterCount() const;
};

/**
 * Multi-head attention of queries [B, T, width] over keys/values [B, T, width] under the
 * causal rule (query i sees keys j ≤ i); self-attention when both are the same tensor.
 */
class CausalAttentionImpl : public torch::nn::Module {
 public:
  CausalAttentionImpl(int64_t width, int64_t heads);
  torch::Tensor forward(const torch::Tensor& query, const torch::Tensor& keyValue);

 private:
  int64_t m_heads;
  torch::nn::Linear m_q{nullptr}, m_k{nullptr}, m_v{nullptr}, m_out{nullptr};
};
TORCH_MODULE(CausalAttention);

/** Pre-norm block: adaLN → causal self-attention, [adaLN → causal cross-attention], adaLN → MLP. */
class BridgeBlockImpl : public torch::nn::Module {
 public:
  BridgeBlockImpl(const BridgeDenoiserConfig& config, bool crossAttention);
  /** h [B, T, width]; time [B, width] (the time embedding); memory [B, T, width] or undefined. */
  torch::Tensor forward(const torch::Tensor& h, const torch::Tensor& time,
                        const torch::Tensor& memory);

 private:
  bool m_cross;
  torch::nn::LayerNorm m_norm{nullptr};     // no affine, no parameters: one is enough for all
  torch::nn::Linear m_modulation{nullptr};  // time → (shift, scale) per sublayer
  CausalAttention m_selfAttention{nullptr}, m_crossAttention{nullptr};
  torch::nn::Sequential m_mlp{nullptr};
};
TORCH_MODULE(BridgeBlock);

/** The denoiser. Throws std::invalid_argument for a bad config or bad input shapes. */
class BridgeDenoiserImpl : public torch::nn::Module {
 public:
  explicit BridgeDenoiserImpl(const BridgeDenoiserConfig& config);
  /** x_t [B, T, dataDim], t [B] in [0, 1], cond [B, T, condDim] → [B, T, dataDim]. */
  torch::Tensor forward(const torch::Tensor& xt, const torch::Tensor& t, const torch::Tensor& cond);
  int64_t parameterCount() const;
  const BridgeDenoiserConfig& config() const { return m_config; }

 private:
  torch::Tensor timeEmbedding(const torch::Tensor& t) const;

  BridgeDenoiserConfig m_config;
  torch::nn::Linear m_input{nullptr}, m_condition{nullptr}, m_output{nullptr};
  torch::nn::LayerNorm m_finalNorm{nullptr};
  torch::nn::Embedding m_positions{nullptr};
  torch::nn::Sequential m_timeMlp{nullptr};
  torch::nn::ModuleList m_blocks{nullptr};
};
TORCH_MODULE(BridgeDenoiser);

}  // namespace strata::model
