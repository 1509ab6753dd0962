#pragma once
// m_curv's neighbourhood step: λ_max of each anchor's neighbour covariance C_i, computed from
// the k×k Gram matrix of the centred neighbours (its non-zero eigenvalues are those of the
// d×d C_i), never from a d×d matrix.

#include <cstdint>
#include <vector>

#include "geometry/cpu/nearest_neighbours.h"
#include "geometry/cpu/neighbourhood_gram.h"
#include "geometry/median.h"

namespace strata::geometry::cpu {

/** The floor on λ_max(C_i): a neighbourhood of k identical points would otherwise give 1/0. */
inline constexpr double kLambdaFloor = kLambdaMaxFloor;  // geometry/median.h

/**
 * λ_max(C_i) for every anchor, in anchor order: C_i = Σ_j (y_j − ȳ)(y_j − ȳ)ᵀ/(k − 1) over the
 * k normalised neighbours y_j (rows of `normalised`), λ_max(C_i) = λ_max(Y_c Y_cᵀ)/(k − 1). The
 * k×k Gram is taken about the first neighbour in float32 (shiftedGram, `kernel`), centred in
 * double, and its largest eigenvalue found in double (LargestEigenvalue). Floored at
 * kLambdaFloor. OpenMP over anchors.
 */
std::vector<double> neighbourhoodLambdaMax(const float* normalised, const RowNormalisation& norm,
                                           const NeighbourLists& neighbours,
                                           GramKernel kernel = GramKernel::Best);

}  // namespace strata::geometry::cpu
