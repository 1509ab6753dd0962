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

/**
 * Σ_i a∘(x_i − μ₀) (a∘(x_i − μ₀))ᵀ over every row, μ₀ the rows' mean and a_j = 1/sd_j the
 * columns' own scales (0 for a constant column). Scaled so that every column enters the
 * float32 product near unit size: columns of a layer can span many orders of magnitude, and an
 * unscaled float32 Gram underflowed the squares of the smallest (a column of scale 1e-28 next
 * to one of scale 1: its diagonal became 0 while standardising made it 1, and Σ + εI was not
 * positive definite).
 */
struct CentredGram {
  int64_t dims = 0;
  std::vector<double> mean;   // μ₀
  std::vector<double> scale;  // a
  /** float32 d×d, row-major upper triangle (= column-major lower), as normalisedCovariance. */
  std::vector<float> gram;
};

/** The Gram of every row of `states` (float32 ssyrk over a centred, scaled copy in `scratch`). */
CentredGram centredGram(const HiddenStates& states, Workspace& scratch);

/**
 * The normalised Σ of the rows outside [begin, end), whose normalisation (weighted mean μ,
 * scales s, W = N − (end − begin)) is `norm`: s_i s_j / (a_i a_j) · (T − G_b − W δδᵀ)_ij / (W − 1)
 * with T = total.gram, G_b the block's Gram about μ₀ scaled by a, and δ = a∘(μ − μ₀); 0 where
 * a column is constant (a_j = 0). Writes the lower triangle of
 * `sigma` (column-major d×d double) as normalisedCovariance does; the block's centred copy
 * and Gram use workspace.scaled and workspace.lower.
 */
void downdatedCovariance(const HiddenStates& states, const CentredGram& total,
                         const RowNormalisation& norm, int64_t begin, int64_t end,
                         Workspace& workspace, double* sigma);

}  // namespace strata::geometry::cpu
