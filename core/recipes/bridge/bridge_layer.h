#pragma once
// l* of an activation store, as the bridge recipe reads it when `layer = -1`. No torch here:
// the GUI's Bridge tab pre-fills its layer with the same function the recipe uses, so both
// agree on the layer a store's scores pick.

#include <cstdint>
#include <filesystem>

namespace strata::recipes {

/** l* of a store: argmax of the DiHAL score (default weights and candidates) of its
 *  /geometry. FormatError when the store has no geometry (run `strata-cli score` first). */
int64_t bestLayerOfStore(const std::filesystem::path& store);

}  // namespace strata::recipes
