#pragma once
// Text from the sweep's layer-0 baseline, unconditional embedding diffusion (Diffusion-LM, Li
// et al. 2022), so that hybrid generation can judge it beside the bridges: the next token after
// a context is sampled in embedding space with the context imposed by replacement infilling
// (at every DDIM step the known positions of x_t are set to their own embeddings noised to
// that step's level — the "replacement" conditioning of Song et al. 2021 / Diffusion-LM's
// infilling without a classifier), then rounded to the nearest embedding row
// (model/diffusion/embedding_rounding.h). As in training, position 0 is not modelled: its embedding
// is only context for the source model, so a one-token context conditions nothing.

#include <cstdint>
#include <vector>

#include "model/diffusion/embedding_rounding.h"
#include "recipes/bridge/bridge_files.h"

namespace strata::recipes {

/** True for a run whose denoiser has no condition at layer 0: it generates by rounding. */
bool isEmbeddingDiffusion(const LoadedBridge& bridge);

/** The token after `ids` (its size n ≥ 1): ĥ_0 of positions 1..n by DDIM from noise drawn with
 *  `seed`, positions 1..n−1 imposed, position n rounded. */
int32_t embeddingDiffusionToken(LoadedBridge& bridge, const model::EmbeddingRounding& rounding,
                                const std::vector<int32_t>& ids, uint64_t seed);

}  // namespace strata::recipes
