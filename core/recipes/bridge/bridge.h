#pragma once
// The DiHAL bridge recipe (DESIGN.md "bridge"): locate and replace. A diffusion model learns
// to rebuild h_{l*} of a frozen source model from the model's input embeddings of the same
// tokens (a causal denoiser: position i sees the embeddings of tokens ≤ i), so that bridge +
// layers l*+1..L + LM head replace the whole model. `process=gaussian` starts generation from
// N(0, I) with the embeddings as a side input; `process=bridge` is a Brownian bridge that starts
// from the (standardised) embeddings themselves (recipes/bridge/bridge_diffusion.h).
// `condition=none` drops the condition: at layer 0 that is unconditional embedding diffusion
// (Diffusion-LM), the sweep's baseline. No torch in this header.

#include <memory>
#include <vector>

#include "engine/config_schema.h"

namespace strata {

namespace engine {
class Recipe;
}  // namespace engine

}  // namespace strata

namespace strata::recipes {

/** The recipe's own settings: source model, layer, corpus, denoiser shape, diffusion. */
std::vector<engine::SettingSpec> bridgeSettings();
std::unique_ptr<engine::Recipe> makeBridgeRecipe();

}  // namespace strata::recipes
