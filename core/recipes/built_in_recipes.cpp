// The built-in recipes (see built_in_recipes.h).

#include "recipes/built_in_recipes.h"

#include "engine/loop_recipe.h"
#include "engine/recipe_catalog.h"
#include "recipes/bridge/bridge.h"
#include "recipes/dcdm/dcdm.h"
#include "recipes/pretrain/pretrain.h"
#include "recipes/repr_align/repr_align.h"

namespace strata::recipes {

void addBuiltInRecipes() {
  engine::addRecipe(engine::loopRecipe(
      "pretrain", "train a small Llama (causal LM) from scratch on a local corpus",
      pretrainSettings, makePretrainRecipe));
  engine::addRecipe(engine::loopRecipe(
      "bridge",
      "DiHAL: a diffusion bridge that rebuilds h_{l*} of a frozen model from its input "
      "embeddings",
      bridgeSettings, makeBridgeRecipe));
  engine::addRecipe(engine::loopRecipe(
      "dcdm", "masked diffusion LM: mdlm, bdlm (positional blocks) or dcdm (chunking attention)",
      dcdmSettings, makeDcdmRecipe));
  engine::addRecipe(engine::loopRecipe(
      "repr_align",
      "REPR-ALIGN: convert an autoregressive model into a masked diffusion LM, its "
      "bidirectional student aligned layer by layer to the frozen causal teacher",
      reprAlignSettings, makeReprAlignRecipe));
}

}  // namespace strata::recipes
