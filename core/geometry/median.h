#pragma once
// The median as numpy computes it, and m_curv's statistic built on it: shared by the CPU and
// CUDA backends and by the bootstrap, so every path reduces the neighbourhoods the same way.

#include <span>
#include <vector>

namespace strata::geometry {

/** numpy's median: the mean of the two middle values for an even count. Throws for none. */
double median(std::vector<double> values);

/** m_curv = median of 1/λ_max(C_i) over the given (already floored) neighbourhood λ_max. */
double curvatureFromLambdaMax(std::span<const double> lambdaMax);

}  // namespace strata::geometry
