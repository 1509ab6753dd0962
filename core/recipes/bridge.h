#pragma once
// The DiHAL bridge recipe (DESIGN.md "bridge"): locate and replace. A conditional diffusion
// model learns to rebuild h_{l*} of a frozen source model from the model's input embeddings
// of the same tokens (a causal denoiser: position i sees the embeddings of tokens ≤ i), so
// that bridge + layers l*+1..L + LM head replace the whole model. No torch in this header.

#include <memory>
#include <vector>

#include "engine/config_schema.h"

namespace strata {

class Recipe;

/** The recipe's own settings: source model, layer, corpus, denoiser shape, diffusion. */
std::vector<SettingSpec> bridgeSettings();
std::unique_ptr<Recipe> makeBridgeRecipe();

}  // namespace strata
