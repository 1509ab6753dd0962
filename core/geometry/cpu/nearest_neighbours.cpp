#include "geometry/cpu/nearest_neighbours.h"

#include <cblas.h>

#include <algorithm>
#include <stdexcept>

namespace strata::geometry::cpu {

namespace {

struct Candidate {
  float distance;
  int64_t row;
};

/** Max-heap order on (distance, row): the heap's top is the worst of an anchor's k. */
inline bool worse(const Candidate& a, const Candidate& b) {
  return a.distance < b.distance || (a.distance == b.distance && a.row < b.row);
}

std::vector<float> squaredRowNorms(const float* rows, int64_t count, int64_t d) {
  std::vector<float> out(count);
  for (int64_t r = 0; r < count; ++r) {
    const float* x = rows + r * d;
    double s = 0;
    for (int64_t j = 0; j < d; ++j) s += double(x[j]) * x[j];
    out[r] = static_cast<float>(s);
  }
  return out;
}

}  // namespace

int64_t compactPosition(const RowNormalisation& norm, int64_t row) {
  const auto found = std::lower_bound(norm.rows.begin(), norm.rows.end(), row);
  return found != norm.rows.end() && *found == row ? found - norm.rows.begin() : -1;
}

NeighbourLists nearestNeighbours(const float* normalised, const RowNormalisation& norm,
                                 std::span<const int64_t> anchors, int64_t k, Workspace& workspace,
                                 int64_t blockRows) {
  const int64_t d = norm.dims;
  const int64_t m = static_cast<int64_t>(anchors.size());
  const int64_t candidates = static_cast<int64_t>(norm.rows.size());
  if (candidates < k + 1)
    throw std::invalid_argument("k nearest neighbours need k + 1 rows of positive weight");

  float* anchorRows = workspace.anchors.take<float>(m * d);
  for (int64_t i = 0; i < m; ++i) {
    const int64_t position = compactPosition(norm, anchors[i]);
    if (position < 0) throw std::invalid_argument("an anchor row has weight 0");
    std::copy_n(normalised + position * d, d, anchorRows + i * d);
  }
  const std::vector<float> anchorNorms = squaredRowNorms(anchorRows, m, d);
  std::vector<float> candidateNorms(candidates);
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < candidates; ++c) {
    const float* x = normalised + c * d;
    double s = 0;
    for (int64_t j = 0; j < d; ++j) s += double(x[j]) * x[j];
    candidateNorms[c] = static_cast<float>(s);
  }

  const int64_t block = std::max<int64_t>(1, std::min(blockRows, candidates));
  float* products = workspace.products.take<float>(m * block);
  // Each anchor's k best so far: a max-heap (the worst on top) once full.
  std::vector<Candidate> heaps(static_cast<size_t>(m * k));
  std::vector<int64_t> filled(m, 0);

  for (int64_t begin = 0; begin < candidates; begin += block) {
    const int64_t n = std::min(block, candidates - begin);
    const int64_t* rows = norm.rows.data() + begin;
    const float* blockNorms = candidateNorms.data() + begin;
    // products[i, c] = a_i · b_c
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(m), int(n), int(d), 1.0f, anchorRows,
                int(d), normalised + begin * d, int(d), 0.0f, products, int(n));
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < m; ++i) {
      Candidate* heap = heaps.data() + i * k;
      int64_t size = filled[i];
      const float* dot = products + i * n;
      const float an = anchorNorms[i];
      const int64_t self = anchors[i];
      // Rows arrive in ascending order, so a later row at an equal distance never displaces
      // an earlier one: the strict comparison below is the lower-index tie rule.
      float worst = size == k ? heap[0].distance : 0.0f;
      for (int64_t c = 0; c < n; ++c) {
        const float dist = an + blockNorms[c] - 2.0f * dot[c];
        if (size == k && !(dist < worst)) continue;
        const int64_t row = rows[c];
        if (row == self) continue;
        if (size < k) {
          heap[size++] = {dist, row};
          std::push_heap(heap, heap + size, worse);
        } else {
          std::pop_heap(heap, heap + k, worse);
          heap[k - 1] = {dist, row};
          std::push_heap(heap, heap + k, worse);
        }
        if (size == k) worst = heap[0].distance;
      }
      filled[i] = size;
    }
  }

  NeighbourLists lists;
  lists.k = k;
  lists.rows.resize(m * k);
  lists.positions.resize(m * k);
  lists.squaredDistances.resize(m * k);
  for (int64_t i = 0; i < m; ++i) {
    Candidate* heap = heaps.data() + i * k;
    std::sort_heap(heap, heap + k, worse);  // ascending (distance, row)
    for (int64_t j = 0; j < k; ++j) {
      lists.rows[i * k + j] = heap[j].row;
      lists.positions[i * k + j] = compactPosition(norm, heap[j].row);
      lists.squaredDistances[i * k + j] = heap[j].distance;
    }
  }
  return lists;
}

}  // namespace strata::geometry::cpu
