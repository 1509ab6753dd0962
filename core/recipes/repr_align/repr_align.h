#pragma once
// The repr_align recipe (DESIGN.md "repr_align"): converts a pretrained autoregressive model of
// any supported architecture into a masked diffusion LM. The teacher is the model itself,
// frozen, causal, on the clean sequence; the student is a trainable copy of the same weights
// run with bidirectional attention on the masked sequence (model/trainable/trainable_backbone.h),
// trained with the shift-convention masked CE plus λ·(1 − mean cos) to the teacher's hidden states
// (model/trainable/alignment_loss.h). Defaults follow the authors' public code; every choice is a
// setting. No torch in this header.

#include <memory>
#include <vector>

#include "engine/config_schema.h"

namespace strata {

namespace engine {
class Recipe;
}  // namespace engine

}  // namespace strata

namespace strata::recipes {

std::vector<engine::SettingSpec> reprAlignSettings();
std::unique_ptr<engine::Recipe> makeReprAlignRecipe();

/** The mask ratios (in %) at which every evaluation also reports the masked CE, as
 *  `masked_ce_r<percent>`: where along the noise schedule a run is good. */
inline constexpr int kReprAlignMaskPercents[] = {10, 30, 50, 70, 90};

}  // namespace strata::recipes
