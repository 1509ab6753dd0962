#pragma once
// Strata's own recipes — pretrain, bridge, dcdm, repr_align — for the engine's recipe catalog.
// Each front end (strata-cli, strata, the test programs) adds them once at start.

namespace strata::recipes {

/** Adds the built-in recipes to the catalog (engine/recipe_catalog.h); calling it again is
 *  harmless. */
void addBuiltInRecipes();

}  // namespace strata::recipes
