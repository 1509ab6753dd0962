#pragma once
// Σ of a delete-one-block jackknife without its own product over the rows: the Gram of all rows
// (centred on their mean, unscaled) is computed once per layer, and each block's Σ is that
// total less the block's own Gram, corrected for the shift of the mean, then scaled as the
// block's normalisation asks. Each block then costs a product over its N/G rows instead of N:
// the G blocks together cost one Σ, where they cost G before (docs/geometry.md, "Intervals").

#include <cstdint>
#include <vector>

#include "geometry/cpu/row_normalisation.h"
#include "geometry/cpu/workspace.h"

namespace strata::geometry::cpu {

/** Σ_i (x_i − μ₀)(x_i − μ₀)ᵀ over every row, μ₀ the rows' mean. */
struct CentredGram {
  int64_t dims = 0;
  std::vector<double> mean;  // μ₀
  /** float32 d×d, row-major upper triangle (= column-major lower), as normalisedCovariance. */
  std::vector<float> gram;
};

/** The Gram of every row of `states` (float32 ssyrk over a centred copy in `scratch`). */
CentredGram centredGram(const HiddenStates& states, Workspace& scratch);

/**
 * The normalised Σ of the rows outside [begin, end), whose normalisation (weighted mean μ,
 * scales s, W = N − (end − begin)) is `norm`: s_i s_j (T − G_b − W δδᵀ)_ij / (W − 1) with
 * T = total.gram, G_b the block's Gram about μ₀ and δ = μ − μ₀. Writes the lower triangle of
 * `sigma` (column-major d×d double) as normalisedCovariance does; the block's centred copy
 * and Gram use workspace.scaled and workspace.lower.
 */
void downdatedCovariance(const HiddenStates& states, const CentredGram& total,
                         const RowNormalisation& norm, int64_t begin, int64_t end,
                         Workspace& workspace, double* sigma);

}  // namespace strata::geometry::cpu
