#pragma once
// Chunking Attention (DESIGN.md "dcdm"): assigns each token to one of K ordered chunks.
//
// Token representation. The router reads x [B, T, d] — in DCDM the input embedding (token +
// position) of the sequence one pass of chunk-sequential routing sees (chunk_layout.h): the
// clean tokens of the chunks already assigned, [MASK] everywhere else, so a chunk's ids never
// carry a clean token of that chunk or a later one. A bare embedding would route every [MASK]
// of a sequence alike, so the router first gives each token some context with one bidirectional
// attention head whose query/key pair W_q, W_k ∈ R^{d×d} is the 2d² overhead (values are the
// normalised inputs themselves, so no W_v / W_o is needed — the head only decides *where* to look):
//   u = rms(x),  x̃_l = rms(u_l + Σ_m softmax_m(u_lᵀW_qᵀW_k u_m / √d) · u_m).
// This is what lets a chunk boundary depend on neighbouring tokens (content-defined chunks).
//
// Affinity (K-subspace clustering): token l's affinity to chunk k is the energy of x̃_l in the
// subspace spanned by μ_k ∈ R^{d×h}, a_lk = ‖μ_kᵀ x̃_l‖² / h. μ starts as K random orthonormal
// bases, so a_lk starts near 1 with spread √(2/h); h = 1 is "point" routing (a direction).
//
// Soft path: p = softmax(a / τ) [B, T, K]; pairwise relation log-probabilities of independent
// draws from p (chunkRelationLogProbability) enter the attention logits, so μ and W_q, W_k get
// gradients from the diffusion loss. Hard path: c = argmax_k(a_lk + b_k) [B, T], where b is
// the non-trained balance bias (a buffer, "balance_bias"), moved by updateBalanceBias as
// DeepSeek-V3's auxiliary-loss-free balancing does (Wang et al. 2024).
//
// Balance loss (per sequence, then averaged over the batch): Gumbel-softmax straight-through
// assignments y (Jang et al. 2017: hard one-hot forward, soft gradient) of (a + b)/τ give each
// sequence's chunk loads f_k = mean_l y_lk, and loss = K/(K−1) · Σ_k (f_k − 1/K)². It is the
// squared deviation from uniform rather than Switch's K·Σ f_k P_k because with hard forward
// loads it is exactly 0 at uniform loads and 1 when one chunk takes everything, whatever p is.
// The bias b is included (it is part of the routing the loss measures) but gets no gradient.
//
// Parameters: μ [K, d, h] ("subspaces"), context.q / context.k (no bias): K·d·h + 2d².
// Threading: a module is used from one thread at a time.

#include <torch/torch.h>

#include <cstdint>

namespace strata::model {

struct ChunkRouterConfig {
  int64_t dim = 0;                 ///< d: width of the token representation
  int64_t chunks = 8;              ///< K ≥ 2
  int64_t rank = 4;                ///< h: subspace rank, 1 ≤ h ≤ d
  double temperature = 1.0;        ///< τ of the soft assignment and of the balance loss
  double gumbelTemperature = 1.0;  ///< temperature of the Gumbel-softmax in balanceLoss
  double normEps = 1e-6;
};

/** One routing pass. */
struct ChunkRouting {
  torch::Tensor affinity;     ///< a [B, T, K] = ‖μ_kᵀ x̃_l‖² / h
  torch::Tensor assignments;  ///< p [B, T, K] = softmax(a / τ) (differentiable)
  torch::Tensor ids;          ///< c [B, T] int64 = argmax(a + balance bias) (no gradient)
};

/** Pairwise relation between the chunks of query l and key m. */
enum class ChunkRelation {
  Same,    ///< c_m == c_l
  Before,  ///< c_m <  c_l
  AtMost,  ///< c_m <= c_l
};

/**
 * log P(relation) for every pair (l, m), with c_l ~ p_l and c_m ~ p_m drawn independently:
 * AtMost = log Σ_k p_l(k)·CDF_m(k) with CDF_m(k) = Σ_{k'≤k} p_m(k'); Before uses CDF_m(k−1);
 * Same = log Σ_k p_l(k)·p_m(k). Probabilities are clamped to ≥ 1e-9 before the log. On the
 * diagonal (a token and itself, which share one chunk) Same and AtMost are 0 and Before is
 * log 1e-9. assignments [B, T, K] → [B, T, T].
 */
torch::Tensor chunkRelationLogProbability(const torch::Tensor& assignments, ChunkRelation relation);

/** Fraction of tokens in each chunk: ids [B, T] (any shape) → [chunks] float32, sums to 1. */
torch::Tensor chunkLoads(const torch::Tensor& ids, int64_t chunks);

class ChunkRouterImpl : public torch::nn::Module {
 public:
  /** Throws std::invalid_argument for chunks < 2, rank outside [1, dim] or τ ≤ 0. */
  explicit ChunkRouterImpl(const ChunkRouterConfig& config);

  /** x [B, T, d] → a [B, T, K]. */
  torch::Tensor affinity(const torch::Tensor& x);
  /** Affinity, soft assignments and hard ids of x [B, T, d]. */
  ChunkRouting forward(const torch::Tensor& x);
  /** The per-sequence straight-through balance loss (header) of affinity [B, T, K]; a scalar.
   *  Draws Gumbel noise from torch's global generator. */
  torch::Tensor balanceLoss(const torch::Tensor& affinity) const;
  /** b_k += rate·sign(1/K − load_k), then b is centred (argmax ignores a common shift): raises
   *  under-loaded chunks and lowers over-loaded ones. loads [K]: counts or fractions. */
  void updateBalanceBias(const torch::Tensor& loads, double rate);

  const torch::Tensor& subspaces() const { return m_subspaces; }      ///< μ [K, d, h]
  const torch::Tensor& balanceBias() const { return m_balanceBias; }  ///< b [K] (buffer)
  int64_t parameterCount() const;                                     ///< K·d·h + 2d²
  const ChunkRouterConfig& config() const { return m_config; }

 private:
  torch::Tensor normalise(const torch::Tensor& x) const;

  ChunkRouterConfig m_config;
  torch::Tensor m_subspaces;
  torch::Tensor m_balanceBias;
  torch::nn::Linear m_query{nullptr}, m_key{nullptr};
};
TORCH_MODULE(ChunkRouter);

}  // namespace strata::model
