#pragma once
// What an activation store keeps of a layer's values, without a store: the rounding that
// writing and reading back would apply. Scoring a capture as it runs (engine/capture_scoring.h)
// rounds through here, so that it sees the very values a store would have served.

#include <cstdint>
#include <span>

#include "io/store/activation_store.h"

namespace strata::io {

/**
 * Rounds `values` in place to what a store of `dtype` serves back: float16 to nearest even, as
 * the writer encodes it (layer_values_writer.cpp), widened exactly, as the reader does; float32
 * keeps them. Returns the index of the first finite value beyond float16's range (±65504), which
 * the writer refuses to store (the values from there on are left as they were), or -1 when every
 * value fits.
 */
int64_t roundAsStored(std::span<float> values, StoreDType dtype);

}  // namespace strata::io
