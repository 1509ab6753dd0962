#pragma once
// Independent pieces of the masked-diffusion evaluation protocol (model/diffusion/
// shared_noise_elbo.h) for its tests: each window's uniforms from a generator seeded by a
// SplitMix64 written out here, and a tiny denoiser of any variant.

#include <torch/torch.h>

#include <cstdint>
#include <string>

#include "model/diffusion/dcdm_transformer.h"

namespace strata::testing {

/** Window w's token uniforms as the protocol documents them: a CPU generator seeded with
 *  mix(mix(seed) ^ mix(w)) (mix = SplitMix64's finaliser), one U[0, 1) per token. */
torch::Tensor referenceWindowUniforms(uint64_t seed, int64_t window, int64_t length);

/** A 1-layer, dim-16 denoiser of `variant` ("mdlm" | "bdlm" | "dcdm": 4 chunks, h = 2) over
 *  `vocab` real tokens. */
model::DcdmTransformerConfig tinyDenoiserConfig(const std::string& variant, int64_t vocab,
                                                int64_t blockSize = 4);

}  // namespace strata::testing
