#pragma once
// Exact k-nearest-neighbour search for the anchors of m_curv, by blocked GEMM: squared
// distances ‖a‖² + ‖b‖² − 2·a·b between all anchors and one block of candidate rows at a time
// (cblas_sgemm), each anchor keeping its k best across blocks. Never an N×N matrix, nor an
// M×N one beyond a block.

#include <cstdint>
#include <span>
#include <vector>

#include "geometry/cpu/row_normalisation.h"
#include "geometry/cpu/workspace.h"

namespace strata::geometry::cpu {

/** k neighbours per anchor, row-major anchors × k, nearest first. */
struct NeighbourLists {
  int64_t k = 0;
  std::vector<int64_t> rows;            // row indices of the input
  std::vector<int64_t> positions;       // the same rows as positions in the compacted copy
  std::vector<float> squaredDistances;  // float32, as the GEMM computed them
};

/**
 * For each anchor row, the k rows of positive weight nearest to it in the normalised space
 * (Euclidean), the anchor row itself excluded, ties broken by the lower row index.
 * `normalised` is normalisedRows(states, norm). Candidates come in blocks of `blockRows` rows;
 * the per-anchor selection runs over OpenMP threads. Requires at least k + 1 rows of positive
 * weight, and anchors of positive weight. `vectorPrefilter` lets AVX-512 (where the CPU has it)
 * pass over the candidates that cannot enter an anchor's full list, 16 at a time; the lists are
 * the same either way (false: every candidate measured one by one, for the tests).
 */
NeighbourLists nearestNeighbours(const float* normalised, const RowNormalisation& norm,
                                 std::span<const int64_t> anchors, int64_t k, Workspace& workspace,
                                 int64_t blockRows = 4096, bool vectorPrefilter = true);

/** Position of `row` in the compacted copy (norm.rows), or −1 when its weight is 0. */
int64_t compactPosition(const RowNormalisation& norm, int64_t row);

}  // namespace strata::geometry::cpu
