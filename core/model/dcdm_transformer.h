#pragma once
// The denoiser of the dcdm recipe (DESIGN.md "dcdm"): a small transformer LM for masked
// diffusion (MDLM, Sahoo et al. 2024) whose attention is governed by chunk ids. One class
// serves the three variants of the recipe:
//   mdlm — no chunks: every token sees every token (one stream; x_0 is not used);
//   bdlm — positional blocks of blockSize (BD3-LM, Arriola et al. 2025);
//   dcdm — K content-defined chunks from a ChunkRouter (chunk_router.h).
// Training runs the dual stream [x_t ; x_0] under dualStreamMask (dcdm_masks.h); sampling runs
// one stream under chunkCausalMask with the caller's ids.
//
// Design choices:
// * Positions are learned absolute embeddings added to the token embedding. The router reads
//   that sum, so it can route by position as well as content (with a bare token embedding,
//   every [MASK] would land in the same chunk). The clean copy of position l gets position l.
// * Tokens: embedding of vocab + 1 ids, [MASK] = vocab. The LM head is untied and has vocab
//   outputs: logits are [B, T, vocab] and never put probability on [MASK], which is what the
//   SUBS parameterisation asks for (the recipe need not add a −inf column).
// * The router reads the embedding of x_t (the noisy input): unmasked positions show their
//   clean token, masked ones [MASK], so chunk ids never depend on a masked clean token.
// * dcdm's soft path: every attention logit gets log P(c_m <= c_l) under the soft
//   assignments p (chunkRelationLogProbability, AtMost) — the relaxation of the chunk-causal
//   rule — in all four blocks of the dual stream and at sampling alike, so where the earlier
//   chunks are clean, sampling gives exactly the logits training gave (a test checks this).
//   Where the hard mask forbids a pair the −inf wins, so the bias only reweights what the
//   hard ids allow; its gradient reaches μ and the router's W_q, W_k.
// * Blocks are pre-norm (RMSNorm), multi-head attention with an additive mask and an optional
//   additive bias [B, 1, Tq, Tk], and a GELU MLP; a final RMSNorm precedes the head.
//
// Parameter names: embedding.weight, positions.weight, blocks.{i}.…, final_norm.weight,
// head.weight and, for dcdm only, router.… — so bdlm and dcdm share every non-router name.
// Threading: a module is used from one thread at a time.

#include <torch/torch.h>

#include <cstdint>
#include <string>

#include "model/chunk_router.h"
#include "model/trainable_llama.h"

namespace strata {

struct DcdmTransformerConfig {
  int64_t vocab = 0;  ///< real tokens; [MASK] = vocab
  int64_t dim = 128;
  int64_t layers = 4;
  int64_t heads = 4;  ///< divides dim
  int64_t mlp = 512;  ///< MLP hidden width
  int64_t maxPositions = 1024;
  std::string variant = "dcdm";  ///< "mdlm" | "bdlm" | "dcdm"
  int64_t blockSize = 8;         ///< bdlm: B
  int64_t chunks = 8;            ///< dcdm: K
  int64_t subspaceRank = 4;      ///< dcdm: h (1 = point routing)
  double routerTemperature = 1.0;
  double gumbelTemperature = 1.0;
  double normEps = 1e-6;
  int64_t maskId() const { return vocab; }
};

/** Overrides for one forward pass (tests, ablations, a sampler that fixes the ids). */
struct DcdmForwardOptions {
  torch::Tensor chunkIds;     ///< [B, T] ids to use instead of the variant's own (any variant)
  bool softOrderBias = true;  ///< dcdm: add the router's soft relation bias to the logits
};

struct DcdmTrainingOutput {
  torch::Tensor logits;       ///< [B, T, vocab], noisy stream
  torch::Tensor chunkIds;     ///< [B, T] int64 (zeros for mdlm)
  torch::Tensor assignments;  ///< [B, T, K] soft p; undefined for mdlm / bdlm
  torch::Tensor balanceLoss;  ///< scalar; 0 for mdlm / bdlm
};

/** Multi-head attention with an additive mask and bias (either may be undefined). */
class DcdmAttentionImpl : public torch::nn::Module {
 public:
  DcdmAttentionImpl(int64_t dim, int64_t heads);
  /** x [B, T, d]; mask, bias [B, 1, T, T] (broadcast over heads). */
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& mask,
                        const torch::Tensor& bias);

 private:
  int64_t m_heads;
  torch::nn::Linear m_q{nullptr}, m_k{nullptr}, m_v{nullptr}, m_o{nullptr};
};
TORCH_MODULE(DcdmAttention);

class DcdmBlockImpl : public torch::nn::Module {
 public:
  explicit DcdmBlockImpl(const DcdmTransformerConfig& config);
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& mask,
                        const torch::Tensor& bias);

 private:
  RmsNorm m_attentionNorm{nullptr}, m_mlpNorm{nullptr};
  DcdmAttention m_attention{nullptr};
  torch::nn::Sequential m_mlp{nullptr};
};
TORCH_MODULE(DcdmBlock);

/** The model. Throws std::invalid_argument for a bad config or bad input shapes. */
class DcdmTransformerImpl : public torch::nn::Module {
 public:
  explicit DcdmTransformerImpl(const DcdmTransformerConfig& config);

  /** Token + position embedding of ids [B, T] (values in [0, vocab]) → [B, T, d]. */
  torch::Tensor embed(const torch::Tensor& ids);
  /** Chunk ids of the variant for noisy input embeddings [B, T, d] (routes for dcdm). */
  torch::Tensor chunkIds(const torch::Tensor& noisyEmbeddings);

  /** x_t, x_0 [B, T] ids; noised [B, T] bool (true where x_t is [MASK]). */
  DcdmTrainingOutput forwardTraining(const torch::Tensor& xt, const torch::Tensor& x0,
                                     const torch::Tensor& noised,
                                     const DcdmForwardOptions& options = {});
  /** forwardTraining on embeddings (embed(x_t), embed(x_0)): lets a test differentiate with
   *  respect to the clean stream's input. */
  DcdmTrainingOutput forwardEmbedded(const torch::Tensor& noisyEmbeddings,
                                     const torch::Tensor& cleanEmbeddings,
                                     const torch::Tensor& noised,
                                     const DcdmForwardOptions& options = {});
  /** One stream x [B, T] (with [MASK]s) under chunkCausalMask(ids) → logits [B, T, vocab];
   *  dcdm adds the soft bias of the router's assignments on x (unless options say not to). */
  torch::Tensor forwardSampling(const torch::Tensor& x, const torch::Tensor& ids,
                                const DcdmForwardOptions& options = {});

  int64_t parameterCount() const;
  int64_t routerParameterCount() const;  ///< K·d·h + 2d² for dcdm, 0 otherwise
  bool hasRouter() const { return !m_router.is_empty(); }
  ChunkRouter& router() { return m_router; }  ///< empty unless dcdm
  const DcdmTransformerConfig& config() const { return m_config; }

 private:
  torch::Tensor run(torch::Tensor h, const torch::Tensor& mask, const torch::Tensor& bias,
                    int64_t outputs);

  DcdmTransformerConfig m_config;
  torch::nn::Embedding m_embedding{nullptr}, m_positions{nullptr};
  torch::nn::ModuleList m_blocks{nullptr};
  RmsNorm m_finalNorm{nullptr};
  torch::nn::Linear m_head{nullptr};
  ChunkRouter m_router{nullptr};
};
TORCH_MODULE(DcdmTransformer);

}  // namespace strata
