#pragma once
// Step one of every proxy (docs/geometry.md, "Normalisation"): the weighted mean μ and the scale
// s_j of each dimension (1 for `none`, sqrt(d / tr(Σ_raw)) for `trace`, 1/σ_j for
// `standardise`), and one float32 copy of the normalised rows of positive weight that every
// later stage reads (4·N·d bytes on top of the caller's input).

#include <cstdint>
#include <span>
#include <vector>

#include "geometry/proxy_options.h"

namespace strata::geometry::cpu {

struct RowNormalisation {
  int64_t dims = 0;
  std::vector<double> mean;   // μ = Σ w_i x_i / W
  std::vector<double> scale;  // s_j per dimension (see Normalisation)
  /** Dimensions of zero variance under `standardise`: their scale is 0 (they stay 0). */
  int64_t constantDimensions = 0;
  double weightSum = 0;       // W = Σ w_i
  std::vector<int64_t> rows;  // the rows of positive weight, ascending
  /** sqrt(w) of each entry of `rows`; empty when every positive weight is 1. */
  std::vector<float> rootWeights;
};

/**
 * μ, s_j (per `mode`) and the rows of positive weight. Throws std::invalid_argument for non-finite
 * values, a weight vector of the wrong length or with a negative or non-finite entry, W ≤ 1, or
 * rows that are all equal (tr(Σ_raw) = 0). Accumulates in double; parallel with OpenMP, with a
 * fixed reduction order (the result does not depend on thread timing).
 */
RowNormalisation normaliseRows(const HiddenStates& states, std::span<const float> weights,
                               Normalisation mode = Normalisation::Trace);

/**
 * out[r, j] = (x_{rows[r], j} − μ_j)·s_j·(factors ? factors[r] : 1) as float32, row-major with
 * stride d. `parallel`: split the rows over OpenMP threads (callers already inside a parallel
 * region pass false).
 */
void writeNormalisedRows(const HiddenStates& states, const RowNormalisation& norm,
                         const int64_t* rows, int64_t count, const float* factors, float* out,
                         bool parallel);

/**
 * The normalised rows of positive weight, compacted: row r of the result is (x_{rows[r]} − μ)∘s,
 * r = 0 … |rows|−1 (float32, row-major, stride d), written to `out`. Parallel over rows.
 */
void normalisedRows(const HiddenStates& states, const RowNormalisation& norm, float* out);

/** The candidate-block length for blocked products over rows of width d: ≤ 64 MiB a block. */
int64_t rowBlockLength(int64_t dims, int64_t preferred);

}  // namespace strata::geometry::cpu
