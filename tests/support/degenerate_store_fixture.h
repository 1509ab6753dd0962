#pragma once
// An activation store whose layers are the degenerate cases of docs/geometry.md ("Degenerate
// layers"), for the scan, the store's warnings and `strata-cli score`:
//   layer 0  duplicated tokens: 150 of 200 rows are copies of 5 far-apart points (30 each)
//   layer 1  a well-behaved anisotropic Gaussian cloud
//   layer 2  constant: every row (3, 3, …, 3)
//   layer 3  a Gaussian cloud scaled by 1e30 (huge norms)
//   layer 4  a Gaussian cloud with one NaN and one +Inf entry
//   layer 5  a well-behaved anisotropic Gaussian cloud
// Default candidates are 1..4; S is defined on layers 1 and 3 only.

#include <cstdint>
#include <filesystem>
#include <vector>

namespace strata::testing {

inline constexpr int64_t kDegenerateTokens = 200;
inline constexpr int64_t kDegenerateHidden = 6;
inline constexpr int64_t kDegenerateLayers = 5;  // layers 0..5 are written

/** A Gaussian cloud of kDegenerateTokens × kDegenerateHidden rows, spectrum decaying with `decay`.
 */
std::vector<float> gaussianCloud(uint32_t seed, float decay);

/** The rows of layer `layer` as written by writeDegenerateStore. */
std::vector<float> degenerateLayer(int64_t layer);

void writeDegenerateStore(const std::filesystem::path& file);

}  // namespace strata::testing
