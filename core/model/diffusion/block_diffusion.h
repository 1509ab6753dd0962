#pragma once
// One training (or validation) batch of the dcdm recipe, as block diffusion over chunks
// (BD3-LM, Arriola et al. 2025, with positional blocks generalised to chunks):
//   1. the chunk layout of the clean tokens x0 — one chunk (mdlm), positional blocks (bdlm),
//      or chunk-sequential routing (dcdm, model/diffusion/chunk_layout.h); it never depends on the
//      noise;
//   2. one noise level t per (sequence, chunk), antithetic over batch × chunks
//      (MaskedDiffusion::sampleChunkTimes), each token taking its chunk's t;
//   3. the noise mask and x_t, each token masked with probability 1 − α of its own t;
//   4. the dual-stream logits under the block-diffusion mask (model/diffusion/dcdm_masks.h) and
//   MDLM's
//      weighted masked CE, each token weighted by its own t, averaged over B·T.
// The recipe, its evaluation and the tests all run this one function.

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include <optional>

#include "model/diffusion/chunk_layout.h"
#include "model/diffusion/dcdm_transformer.h"
#include "model/diffusion/masked_diffusion.h"

namespace strata::model {

struct BlockDiffusionBatch {
  ChunkLayout layout;
  at::Tensor t;       ///< [B, T] each token's noise level (its chunk's)
  at::Tensor noised;  ///< [B, T] bool, true = [MASK] in x_t
  at::Tensor xt;      ///< [B, T]
  at::Tensor logits;  ///< [B, T, vocab]
  MaskedDiffusionLoss loss;
};

/** Steps 1–4 for clean x0 [B, T]. `generator` replaces torch's global RNG for t and the noise
 *  (validation); `layout` replaces the model's own (tests: dcdm with positional ids). */
BlockDiffusionBatch blockDiffusionBatch(DcdmTransformerImpl& model,
                                        const MaskedDiffusion& diffusion, const at::Tensor& x0,
                                        std::optional<at::Generator> generator = std::nullopt,
                                        std::optional<ChunkLayout> layout = std::nullopt);

/** Steps 3–4 for a given layout, noise levels t [B, T] and noise mask [B, T] (bool): x_t, the
 *  logits and the loss. blockDiffusionBatch draws t and the mask, then calls this; the held-out
 *  evaluation (shared_noise_elbo.h) passes the same draws to every variant. */
BlockDiffusionBatch blockDiffusionAt(DcdmTransformerImpl& model, const MaskedDiffusion& diffusion,
                                     const at::Tensor& x0, ChunkLayout layout, const at::Tensor& t,
                                     const at::Tensor& noised);

}  // namespace strata::model
