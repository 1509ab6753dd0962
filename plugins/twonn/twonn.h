#pragma once
// TwoNN intrinsic dimension (Facco, d'Errico, Rodriguez & Laio, "Estimating the intrinsic
// dimension of datasets by a minimal neighborhood information", Sci. Rep. 7, 12140, 2017).
//
// For each point i, μ_i = r2/r1, the ratio of the distances to its second and first nearest
// neighbours. If the density is locally constant on a d-dimensional manifold, μ is Pareto
// distributed: F(μ) = 1 − μ^(−d) for μ ≥ 1. Two estimators of d:
//  * fit (the paper's, the default): sort μ ascending, F_emp(μ_(i)) = i/N; fit
//    −log(1 − F_emp) = d·log μ by least squares through the origin over the smallest
//    (1 − discard)·N ratios (the paper discards the largest 10%, which are the noisiest);
//  * mle: the maximum-likelihood estimate d = N / Σ_i log μ_i.
// Points with r1 = 0 (exact duplicates) are left out, as the paper prescribes.

#include <cstdint>
#include <vector>

namespace strata_plugins {

enum class TwoNNEstimator { Fit, MaximumLikelihood };

/** μ_i = r2/r1 of every row of the N×d row-major `rows` that has r1 > 0 (Euclidean). */
std::vector<double> twoNNRatios(const float* rows, int64_t n, int64_t d);

/** d from the ratios; `discard` ∈ [0, 1) is the share of the largest μ the fit leaves out. */
double twoNNDimension(std::vector<double> ratios, TwoNNEstimator estimator, double discard);

}  // namespace strata_plugins
