#include "geometry/cpu/nearest_neighbours.h"

#include <cblas.h>
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "geometry/cpu/simd.h"

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

/**
 * The first candidate from `c` on that may lie nearer than `worst`, or n: squared distances of 16
 * candidates at a time, each dropped only when it exceeds `worst` by more than rounding could
 * explain. Compiled for AVX-512F and run only where the CPU has it; the caller measures every
 * candidate it returns exactly as before, so the selection does not change.
 */
__attribute__((target("avx512f"))) int64_t nextCloserAvx512(const float* dot, const float* norms,
                                                            int64_t c, int64_t n, float anchorNorm,
                                                            float worst) {
  // The same operations in the same order as the caller's scalar distance (×2 is exact, so a
  // fused multiply-add rounds alike): the vector distances equal the scalar ones. The margin only
  // guards against a compiler reordering them; it lets more candidates through, never fewer.
  const __m512 limit = _mm512_set1_ps(worst + 1e-5f * (std::abs(worst) + anchorNorm) + 1e-30f);
  const __m512 an = _mm512_set1_ps(anchorNorm), two = _mm512_set1_ps(2.0f);
  for (; c + 16 <= n; c += 16) {
    const __m512 dist = _mm512_sub_ps(_mm512_add_ps(an, _mm512_loadu_ps(norms + c)),
                                      _mm512_mul_ps(two, _mm512_loadu_ps(dot + c)));
    const __mmask16 closer = _mm512_cmp_ps_mask(dist, limit, _CMP_LT_OQ);
    if (closer != 0) return c + __builtin_ctz(closer);
  }
  return c;  // the last n mod 16 candidates: the caller measures them one by one
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
                                 int64_t blockRows, bool vectorPrefilter) {
  const bool prefilter = vectorPrefilter && hasAvx512f();
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
        // Once the heap is full most candidates lie farther than its worst: skip those in bulk.
        if (size == k && prefilter) {
          c = nextCloserAvx512(dot, blockNorms, c, n, an, worst);
          if (c == n) break;
        }
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
