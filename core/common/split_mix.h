#pragma once
// SplitMix64's output function (Steele, Lea & Flood 2014): a pure, well-mixed 64-bit hash of x,
// for draws that must be a function of their position (seed, step, row, window) alone.

#include <cstdint>

namespace strata {

inline uint64_t splitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

}  // namespace strata
