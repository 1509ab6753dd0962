#pragma once
// The median as numpy computes it, and m_curv's statistic built on it: shared by the CPU and
// CUDA backends and by the bootstrap, so every path reduces the neighbourhoods the same way.

#include <span>
#include <vector>

namespace strata::geometry {

/**
 * λ_max(C_i) below this is a zero-spread neighbourhood (its k neighbours coincide to float32
 * precision, e.g. duplicated tokens) and is floored here by both backends, so that 1/λ_max stays
 * finite in the per-anchor lists; computeLayerGeometry decides what m_curv reports then.
 */
inline constexpr double kLambdaMaxFloor = 1e-12;

/** Whether a (floored) neighbourhood λ_max is a zero-spread neighbourhood. */
inline bool zeroSpread(double lambdaMax) { return lambdaMax <= kLambdaMaxFloor; }

/** numpy's median: the mean of the two middle values for an even count. Throws for none. */
double median(std::vector<double> values);

/** m_curv = median of 1/λ_max(C_i) over the given (already floored) neighbourhood λ_max. */
double curvatureFromLambdaMax(std::span<const double> lambdaMax);

}  // namespace strata::geometry
