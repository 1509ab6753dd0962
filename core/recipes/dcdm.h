#pragma once
// The dcdm recipe (DESIGN.md "dcdm"): a masked diffusion LM trained from scratch on a local
// corpus, in three variants that share everything but the attention rule — mdlm (no chunks),
// bdlm (positional blocks of block_size) and dcdm (K content-defined chunks chosen by Chunking
// Attention, h-dimensional subspaces). MDLM objective and conventions (model/masked_diffusion.h),
// dual-stream training with the noise mask (model/dcdm_masks.h), load balancing by a
// straight-through Gumbel-softmax auxiliary loss plus a non-trained bias from running loads.
// No torch in this header.

#include <memory>
#include <vector>

#include "engine/config_schema.h"

namespace strata {

class Recipe;

std::vector<SettingSpec> dcdmSettings();
std::unique_ptr<Recipe> makeDcdmRecipe();

}  // namespace strata
