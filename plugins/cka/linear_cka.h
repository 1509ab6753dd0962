#pragma once
// Linear centred kernel alignment (Kornblith, Norouzi, Lee & Hinton, "Similarity of Neural
// Network Representations Revisited", ICML 2019, eq. 5 with linear kernels):
//
//   CKA(X, Y) = ‖YᵀX‖²_F / (‖XᵀX‖_F · ‖YᵀY‖_F),  X, Y column-centred, rows = the same tokens.
//
// Equivalently HSIC(K, L)/sqrt(HSIC(K, K)·HSIC(L, L)) with K = XXᵀ, L = YYᵀ. It lies in [0, 1],
// is 1 for Y = X, and is invariant to orthogonal transforms and isotropic scaling of either
// side (not to arbitrary invertible linear maps).

#include <cstdint>

namespace strata_plugins {

/** Linear CKA of X (n×dx) and Y (n×dy), both row-major float32; centres them itself. */
double linearCka(const float* x, int64_t n, int64_t dx, const float* y, int64_t dy);

}  // namespace strata_plugins
