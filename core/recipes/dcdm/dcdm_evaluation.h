#pragma once
// The dcdm recipe's held-out evaluation (the val_* metrics of every variant), under the protocol
// of model/diffusion/shared_noise_elbo.h: windows 0..N−1 of the validation tokens (disjoint,
// seq_len each), every window at every point of the fixed t grid, and each window's token
// uniforms from a generator seeded by (eval_seed, window) alone — so mdlm, bdlm and dcdm runs
// on the same corpus and settings are scored on identical x_t, whatever their batch size or
// training seed.

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <vector>

#include "engine/recipe.h"
#include "model/diffusion/dcdm_transformer.h"
#include "model/diffusion/masked_diffusion.h"

namespace strata::recipes {

struct HeldOutElboOptions {
  int64_t seqLen = 0;
  int64_t batch = 1;       ///< windows per forward pass (does not change any number)
  int64_t windows = 128;   ///< asked for; at most as many as the validation tokens hold
  int64_t timePoints = 8;  ///< G, the t grid's midpoints
  uint64_t seed = 0;       ///< eval_seed: the windows' noise
};

/** How many disjoint windows of seqLen the validation tokens hold, at most `asked`. */
int64_t heldOutWindowCount(const std::vector<int32_t>& val, int64_t seqLen, int64_t asked);

struct HeldOutEvaluation {
  /** loss (the ELBO, nats/token, mean over windows), loss_se (its standard error over windows:
   *  for one number alone; two variants' difference is paired, window by window, and far
   *  tighter), ppl_bound = exp(loss), masked_nll and masked_acc (over all masked positions of all
   *  windows and t), windows (the count used) and, with a router, load_entropy,
   *  max_chunk_share and chunk_share_<k>. */
  engine::Metrics metrics;
  std::vector<double> windowElbo;  ///< each window's ELBO per token, window 0 first
};

HeldOutEvaluation heldOutElbo(model::DcdmTransformerImpl& model,
                              const model::MaskedDiffusion& diffusion,
                              const std::vector<int32_t>& val, const HeldOutElboOptions& options,
                              const at::Device& device);

/** Entropy of chunk loads over log K (1 = perfectly even, 0 = every token in one chunk), a
 *  float64 scalar on the loads' device. */
at::Tensor normalisedEntropy(const at::Tensor& loads);

}  // namespace strata::recipes
