#pragma once
// Rounding of continuous embeddings back to tokens, as in Diffusion-LM (Li et al. 2022, §4.2,
// "rounding"): each vector ĥ_0 becomes the token whose input embedding is nearest in Euclidean
// distance, argmin_w ‖ĥ_0 − E_w‖² = argmax_w (2·ĥ_0·E_w − ‖E_w‖²) — Diffusion-LM's
// p(w | x0) ∝ exp(−‖x0 − E_w‖²) read at its mode. Nearest Euclidean row, not the largest dot
// product: the dot product favours large-norm rows (a tied LM head's argmax is not rounding).
// For models with learned absolute positions (GPT-2) h_0 = E_w + P_p, so position p's own
// offset is removed first. Threading: one object per thread; the table is read-only.

#include <ATen/core/Tensor.h>

namespace strata::model {

class Backbone;

class EmbeddingRounding {
 public:
  /** Reads the model's input-embedding table (embed() of every token id at position 0). */
  explicit EmbeddingRounding(const Backbone& model);
  /** hidden [B, T, d] (h_0 space, raw, any device) → token ids [B, T] int64 on the CPU. */
  at::Tensor tokens(const at::Tensor& hidden) const;

 private:
  const Backbone& m_model;
  at::Tensor m_table;     // [V, d] float32, position 0
  at::Tensor m_rowNorms;  // [V] ‖E_w‖²
};

}  // namespace strata::model
