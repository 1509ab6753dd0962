#pragma once
// The denoiser of the dcdm recipe (DESIGN.md "dcdm"): a small transformer LM for masked
// diffusion (MDLM, Sahoo et al. 2024) whose attention is governed by chunk ids. One class
// serves the three variants of the recipe:
//   mdlm — no chunks: every token sees every token (one stream; x_0 is not used);
//   bdlm — positional blocks of blockSize (BD3-LM, Arriola et al. 2025);
//   dcdm — K content-defined chunks from a ChunkRouter (chunk_router.h).
// Training is block diffusion (BD3-LM) over chunks: the dual stream [x_t ; x_0] under
// blockDiffusionMask (dcdm_masks.h), with the chunk layout (chunk_layout.h) computed from x_0 by
// the variant BEFORE the noise is drawn (one t per chunk, masked_diffusion.h). Sampling runs
// one stream under chunkCausalMask with a layout of the sequence being decoded.
//
// Design choices:
// * Positions are learned absolute embeddings added to the token embedding. The router reads
//   that sum, so it can route by position as well as content (with a bare token embedding,
//   every [MASK] would land in the same chunk). The clean copy of position l gets position l.
// * Tokens: embedding of vocab + 1 ids, [MASK] = vocab. The LM head is untied and has vocab
//   outputs: logits are [B, T, vocab] and never put probability on [MASK], which is what the
//   SUBS parameterisation asks for (the recipe need not add a −inf column).
// * dcdm routes chunk-sequentially (chunk_layout.h): the tokens of chunk c are chosen, and
//   their routing quantities computed, from the clean tokens of chunks < c only — leak-free
//   under the block-diffusion mask, and what the sampler reproduces.
// * dcdm's soft path: every attention logit of row l gets log P(c_m <= c_l) under the soft
//   assignments of the routing pass that assigned l (ChunkLayout::orderBias) — the relaxation
//   of the chunk-causal rule — in all four blocks of the dual stream and at sampling alike, so
//   where the earlier chunks are clean, sampling gives exactly the logits training gave (a test
//   checks this). Where the hard mask forbids a pair the −inf wins, so the bias only reweights
//   what the hard ids allow; its gradient reaches μ and the router's W_q, W_k.
// * Blocks are pre-norm (RMSNorm), multi-head attention with an additive mask and an optional
//   additive bias [B, 1, Tq, Tk], and a GELU MLP; a final RMSNorm precedes the head.
//
// Parameter names: embedding.weight, positions.weight, blocks.{i}.…, final_norm.weight,
// head.weight and, for dcdm only, router.… — so bdlm and dcdm share every non-router name.
// Threading: a module is used from one thread at a time.

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

#include "model/diffusion/chunk_layout.h"
#include "model/diffusion/chunk_router.h"
#include "model/diffusion/dlm_variant.h"
#include "model/trainable/trainable_llama.h"

namespace strata::model {

struct DcdmTransformerConfig {
  int64_t vocab = 0;  ///< real tokens; [MASK] = vocab
  int64_t dim = 128;
  int64_t layers = 4;
  int64_t heads = 4;  ///< divides dim
  int64_t mlp = 512;  ///< MLP hidden width
  int64_t maxPositions = 1024;
  DlmVariant variant = DlmVariant::Dcdm;
  int64_t blockSize = 8;     ///< bdlm: B
  int64_t chunks = 8;        ///< dcdm: K
  int64_t subspaceRank = 4;  ///< dcdm: h (1 = point routing)
  double routerTemperature = 1.0;
  double gumbelTemperature = 1.0;
  double normEps = 1e-6;
  int64_t maskId() const { return vocab; }
  /** Every parameter of a DcdmTransformer of this shape, without building one. */
  int64_t parameterCount() const;
};

/** Overrides for one forward pass (tests, ablations). A layout's own ids can be replaced by
 *  passing fixedChunkLayout(ids, chunks) instead of the variant's chunkLayout. */
struct DcdmForwardOptions {
  bool softOrderBias = true;  ///< add the layout's soft order bias (dcdm) to the logits
};

/** One block's cached keys and values of the positions already decoded (earlier chunks). */
struct LayerKvCache {
  torch::Tensor keys, values;  ///< [B, H, C, head dim]; undefined while empty
};

/** The sampler's KV cache: the clean earlier chunks, computed once when their chunk is done.
 *  Valid because a decoded chunk never changes again and, under the chunk-causal rule, its
 *  rows attend only chunks <= their own (dcdm_masks.h), all of which are already final. */
struct DcdmKvCache {
  std::vector<LayerKvCache> layers;  ///< one per block
  torch::Tensor positions;           ///< [C] int64: the cached positions, in cache order
};

/** Multi-head attention with an additive mask and bias (either may be undefined). */
class DcdmAttentionImpl : public torch::nn::Module {
 public:
  DcdmAttentionImpl(int64_t dim, int64_t heads);
  /** x [B, T, d]; mask, bias [B, 1, T, T] (broadcast over heads). */
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& mask,
                        const torch::Tensor& bias);
  /** Rows x [B, R, d] of one chunk attending the cached keys/values and each other (no mask:
   *  every cached position is in an earlier chunk); bias [B, 1, R, C + R] or undefined. With
   *  `commit` the rows' keys and values are appended to `cache`. */
  torch::Tensor forwardCached(const torch::Tensor& x, const torch::Tensor& bias,
                              LayerKvCache& cache, bool commit);

 private:
  /** Scaled dot-product attention of projected queries [B, R, d] to projected keys/values
   *  [B, T, d], after the cached ones when `cache` is given (which then holds all of them). */
  torch::Tensor attend(const torch::Tensor& queries, torch::Tensor keys, torch::Tensor values,
                       const torch::Tensor& mask, const torch::Tensor& bias, int64_t rows,
                       LayerKvCache* cache = nullptr);

  int64_t m_heads;
  torch::nn::Linear m_q{nullptr}, m_k{nullptr}, m_v{nullptr}, m_o{nullptr};
};
TORCH_MODULE(DcdmAttention);

class DcdmBlockImpl : public torch::nn::Module {
 public:
  explicit DcdmBlockImpl(const DcdmTransformerConfig& config);
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& mask,
                        const torch::Tensor& bias);
  /** forward() of one chunk's rows against the cache (DcdmAttentionImpl::forwardCached). */
  torch::Tensor forwardCached(const torch::Tensor& x, const torch::Tensor& bias,
                              LayerKvCache& cache, bool commit);

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
  /** The variant's chunk layout of clean tokens x0 [B, T]: one chunk (mdlm), positional
   *  blocks (bdlm) or chunk-sequential routing (dcdm). pinned [B, T] bool (optional): positions
   *  forced into chunk 0 (the sampler's prompt). */
  ChunkLayout chunkLayout(const torch::Tensor& x0, const torch::Tensor& pinned = {});
  /** The per-sequence balance loss of a routed layout (draws Gumbel noise from torch's global
   *  RNG); 0 when the layout has no affinities (mdlm, bdlm, fixed ids). */
  torch::Tensor balanceLoss(const ChunkLayout& layout);

  /** The additive mask [B, 1, 2T, 2T] training attends with for this layout:
   *  blockDiffusionMask(layout.ids) (dcdm_masks.h). */
  torch::Tensor trainingMask(const ChunkLayout& layout) const;
  /** Logits [B, T, vocab] of the noisy stream: x_t, x_0 [B, T] ids under the layout's
   *  block-diffusion mask (with one chunk, the clean stream could not change them and is not
   *  run). */
  torch::Tensor forwardTraining(const torch::Tensor& xt, const torch::Tensor& x0,
                                const ChunkLayout& layout, const DcdmForwardOptions& options = {});
  /** forwardTraining on embeddings (embed(x_t), embed(x_0)): lets a test differentiate with
   *  respect to the clean stream's input. */
  torch::Tensor forwardEmbedded(const torch::Tensor& noisyEmbeddings,
                                const torch::Tensor& cleanEmbeddings, const ChunkLayout& layout,
                                const DcdmForwardOptions& options = {});
  /** One stream x [B, T] (with [MASK]s) under chunkCausalMask(layout.ids) plus the layout's
   *  order bias → logits [B, T, vocab]. */
  torch::Tensor forwardSampling(const torch::Tensor& x, const ChunkLayout& layout,
                                const DcdmForwardOptions& options = {});
  /** forwardSampling's logits [B, R, vocab] of the positions `rows` ([R] int64, all of one
   *  chunk c) with every chunk < c already in `cache` and nothing else there: the same numbers
   *  (up to summation order) at the cost of R rows instead of T. With `commit` (call once chunk
   *  c is fully decoded) the rows' keys and values join the cache. */
  torch::Tensor forwardSamplingCached(const torch::Tensor& x, const ChunkLayout& layout,
                                      const torch::Tensor& rows, DcdmKvCache& cache, bool commit,
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

}  // namespace strata::model
