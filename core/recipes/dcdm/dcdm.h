#pragma once
// The dcdm recipe (DESIGN.md "dcdm"): a masked diffusion LM trained from scratch on a local
// corpus, in three variants that share everything but the attention rule — mdlm (no chunks),
// bdlm (positional blocks of block_size) and dcdm (K content-defined chunks chosen by Chunking
// Attention, h-dimensional subspaces). MDLM objective and conventions
// (model/diffusion/masked_diffusion.h); training is block diffusion (BD3-LM) over chunks: one noise
// level per chunk, noisy tokens read their own chunk's noisy tokens and every clean token of
// earlier chunks (model/diffusion/dcdm_masks.h), dcdm's chunks chosen by chunk-sequential routing
// of the clean tokens (model/diffusion/chunk_layout.h); load balancing by a straight-through
// Gumbel-softmax auxiliary loss plus a non-trained bias from running loads. No torch in this
// header.

#include <memory>
#include <vector>

#include "engine/config_schema.h"

namespace strata {

namespace engine {
class Recipe;
}  // namespace engine

}  // namespace strata

namespace strata::recipes {

std::vector<engine::SettingSpec> dcdmSettings();
std::unique_ptr<engine::Recipe> makeDcdmRecipe();

}  // namespace strata::recipes
