#pragma once
// A small Llama that can be trained: torch::nn modules whose parameter names are exactly the
// Hugging Face LlamaForCausalLM names (model.embed_tokens.weight,
// model.layers.{i}.self_attn.q_proj.weight, ..., model.norm.weight; the LM head is tied to the
// embedding), so exporting is writing named_parameters() as they are. Used by the pretrain
// recipe; Backbone (inference) reads the exported folder and must give the same logits.
//
// Threading: a module is used from one thread at a time.

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace strata::model {

/** Shape of a TrainableLlama (HF config.json names in comments). */
struct TrainableLlamaConfig {
  int64_t vocabSize = 258;      ///< vocab_size
  int64_t dim = 128;            ///< hidden_size
  int64_t layers = 4;           ///< num_hidden_layers
  int64_t heads = 4;            ///< num_attention_heads
  int64_t kvHeads = 4;          ///< num_key_value_heads (divides heads)
  int64_t mlp = 352;            ///< intermediate_size
  int64_t maxPositions = 2048;  ///< max_position_embeddings
  double ropeTheta = 10000.0;   ///< rope_theta
  double normEps = 1e-5;        ///< rms_norm_eps
  int64_t headDim() const { return dim / heads; }
  /** Every parameter of a TrainableLlama of this shape (the head is the embedding), without
   *  building one: what a training run's memory plan counts. */
  int64_t parameterCount() const;
};

/** RMSNorm (Zhang & Sennrich 2019) as HF LlamaRMSNorm: float32 statistics, then × weight. */
class RmsNormImpl : public torch::nn::Module {
 public:
  RmsNormImpl(int64_t dim, double eps);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  torch::Tensor m_weight;
  double m_eps;
};
TORCH_MODULE(RmsNorm);

/** Causal self-attention with grouped key/value heads and rotate_half RoPE. */
class LlamaAttentionImpl : public torch::nn::Module {
 public:
  explicit LlamaAttentionImpl(const TrainableLlamaConfig& config);
  /** x [B, T, d]; cos, sin [T, headDim]. */
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& cos, const torch::Tensor& sin);

 private:
  TrainableLlamaConfig m_config;
  torch::nn::Linear m_q{nullptr}, m_k{nullptr}, m_v{nullptr}, m_o{nullptr};
};
TORCH_MODULE(LlamaAttention);

/** SwiGLU MLP (Shazeer 2020): down(silu(gate(x)) · up(x)). */
class LlamaMlpImpl : public torch::nn::Module {
 public:
  explicit LlamaMlpImpl(const TrainableLlamaConfig& config);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  torch::nn::Linear m_gate{nullptr}, m_up{nullptr}, m_down{nullptr};
};
TORCH_MODULE(LlamaMlp);

/** One pre-norm decoder block. */
class LlamaDecoderLayerImpl : public torch::nn::Module {
 public:
  explicit LlamaDecoderLayerImpl(const TrainableLlamaConfig& config);
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& cos, const torch::Tensor& sin);

 private:
  RmsNorm m_inputNorm{nullptr}, m_postAttentionNorm{nullptr};
  LlamaAttention m_attention{nullptr};
  LlamaMlp m_mlp{nullptr};
};
TORCH_MODULE(LlamaDecoderLayer);

/** The "model." part of LlamaForCausalLM: embedding, blocks, final norm. */
class LlamaTrunkImpl : public torch::nn::Module {
 public:
  explicit LlamaTrunkImpl(const TrainableLlamaConfig& config);
  /** ids [B, T] int64 → final-norm output [B, T, d]. */
  torch::Tensor forward(const torch::Tensor& ids);
  const torch::Tensor& embeddingWeight() const { return m_embed->weight; }

 private:
  TrainableLlamaConfig m_config;
  torch::nn::Embedding m_embed{nullptr};
  torch::nn::ModuleList m_layers{nullptr};
  RmsNorm m_norm{nullptr};
  torch::Tensor m_inverseFrequencies;  // buffer-free: recomputed, not a parameter
};
TORCH_MODULE(LlamaTrunk);

/** LlamaForCausalLM with tied embeddings. */
class TrainableLlamaImpl : public torch::nn::Module {
 public:
  explicit TrainableLlamaImpl(const TrainableLlamaConfig& config);
  /** ids [B, T] int64 → logits [B, T, vocab] float32. */
  torch::Tensor forward(const torch::Tensor& ids);
  /** Mean next-token cross-entropy of `ids` [B, T+1]: inputs ids[:, :-1], targets ids[:, 1:]. */
  torch::Tensor loss(const torch::Tensor& ids);
  /** Normal(0, 0.02) for embeddings and projections, o_proj and down_proj scaled by
   *  1/sqrt(2·layers) (GPT-2's residual scaling), norms at 1. Uses torch's global RNG. */
  void initialiseWeights();
  /** The parameters under their Hugging Face names, in a stable order. */
  std::vector<std::pair<std::string, torch::Tensor>> huggingFaceTensors() const;
  const TrainableLlamaConfig& config() const { return m_config; }

 private:
  TrainableLlamaConfig m_config;
  LlamaTrunk m_model{nullptr};
};
TORCH_MODULE(TrainableLlama);

}  // namespace strata::model
