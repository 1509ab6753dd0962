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
// Coincident points (duplicate tokens, e.g. every occurrence of one token id in an embedding
// layer) are merged first, keeping one copy of each distinct row, as the paper prescribes and
// DADApy does (`remove_identical_points`). Dropping only the points with r1 = 0 is not enough:
// a point whose nearest neighbour has copies sees r2 = r1 (μ = 1), which drives d up.

#include <cstdint>
#include <vector>

namespace strata_plugins {

enum class TwoNNEstimator { Fit, MaximumLikelihood };

struct TwoNNRatios {
  std::vector<double> ratios;  // μ_i = r2/r1 of every distinct row
  int64_t duplicates = 0;      // rows left out as copies of an earlier row
};

/**
 * μ_i = r2/r1 (Euclidean) of every distinct row of the N×d row-major `rows`, the neighbours
 * searched among the distinct rows. Throws std::invalid_argument naming how many rows were
 * duplicates when fewer than 3 distinct rows remain. Where the CPU has AVX-512F the Gram
 * blocks' candidates are screened sixteen at a time (the same candidates as the scalar scan).
 */
TwoNNRatios twoNNRatios(const float* rows, int64_t n, int64_t d);

/** d from the ratios; `discard` ∈ [0, 1) is the share of the largest μ the fit leaves out. */
double twoNNDimension(std::vector<double> ratios, TwoNNEstimator estimator, double discard);

}  // namespace strata_plugins
