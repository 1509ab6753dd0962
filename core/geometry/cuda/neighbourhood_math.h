#pragma once
// The per-anchor algorithms of the CUDA m_curv kernels, written once for a thread block and for
// a plain C++ host: the merge of a candidate block into an anchor's k nearest rows, the centred
// k×k Gram of the neighbours, and λ_max of that Gram by cyclic Jacobi.
//
// Each algorithm is a sequence of data-parallel phases: `team.forEach(n, f)` calls f(i) once
// for every i in [0, n) — by the block's threads, strided, on the device; serially on the host —
// and `team.sync()` is the barrier between phases (__syncthreads() on the device, nothing on the
// host). Inside one phase no task reads what another task of the same phase writes, so the
// serial host run computes exactly what the block computes; geometry_cuda_test.cpp checks these
// algorithms on the host against brute force, on machines without a GPU too.
// No CUDA header is needed: plain C++ compilers see ordinary inline functions.

#include <cfloat>
#include <climits>
#include <cmath>

#ifdef __CUDACC__
#define STRATA_HD __host__ __device__
#define STRATA_HD_TEMPLATE _Pragma("nv_exec_check_disable")
#else
#define STRATA_HD
#define STRATA_HD_TEMPLATE
#endif

namespace strata::geometry::cuda_detail {

/** Largest k (neighbours per anchor) the kernels handle: the k×k Gram lives in shared memory. */
constexpr int kMaxNeighbours = 64;
/** Elements sorted per anchor and candidate block: kMaxNeighbours best-so-far + candidates. */
constexpr int kSortSize = 4096;
/** Candidate rows per block (one GEMM of anchors × candidates, then one merge). */
constexpr int kCandidateBlock = kSortSize - kMaxNeighbours;
/** Columns of the neighbour rows staged in shared memory at a time for the Gram. */
constexpr int kGramTile = 32;
/** Row index of an empty slot: sorts after every real row at equal (infinite) distance. */
constexpr int kNoRow = INT_MAX;

/** One thread block (device) or one host thread running the phases in order. */
struct Team {
  template <class F>
  STRATA_HD void forEach(int n, F&& f) const {
#ifdef __CUDA_ARCH__
    for (int i = int(threadIdx.x); i < n; i += int(blockDim.x)) f(i);
#else
    for (int i = 0; i < n; ++i) f(i);
#endif
  }
  STRATA_HD void sync() const {
#ifdef __CUDA_ARCH__
    __syncthreads();
#endif
  }
};

/** Neighbour order: by distance, ties to the lower row index (the CPU backend's rule). */
STRATA_HD inline bool nearer(float distA, int rowA, float distB, int rowB) {
  return distA < distB || (distA == distB && rowA < rowB);
}

/** Ascending bitonic sort of (dist, row) by `nearer`; n a power of two. Ends synchronised. */
STRATA_HD_TEMPLATE
template <class TeamT>
STRATA_HD void bitonicSort(const TeamT& team, float* dist, int* row, int n) {
  for (int size = 2; size <= n; size <<= 1) {
    for (int stride = size >> 1; stride > 0; stride >>= 1) {
      team.forEach(n / 2, [&](int t) {
        const int i = 2 * t - (t & (stride - 1));  // lower element of this compare-exchange
        const int j = i + stride;
        const bool ascending = (i & size) == 0;
        const bool outOfOrder = ascending ? nearer(dist[j], row[j], dist[i], row[i])
                                          : nearer(dist[i], row[i], dist[j], row[j]);
        if (outOfOrder) {
          const float d = dist[i];
          dist[i] = dist[j];
          dist[j] = d;
          const int r = row[i];
          row[i] = row[j];
          row[j] = r;
        }
      });
      team.sync();
    }
  }
}

/**
 * Merges one block of candidates into an anchor's k nearest rows so far (bestDist/bestRow,
 * sorted, empty slots = (+inf, kNoRow)). `candidate(c, dist, row)` gives candidate c's squared
 * distance and row; a candidate that must not count (the anchor itself) reports (+inf, kNoRow).
 * `dist`/`row` are kSortSize scratch slots; k ≤ kMaxNeighbours, candidates ≤ kCandidateBlock.
 */
STRATA_HD_TEMPLATE
template <class TeamT, class Candidate>
STRATA_HD void mergeNearest(const TeamT& team, float* dist, int* row, int k, float* bestDist,
                            int* bestRow, int candidates, Candidate&& candidate) {
  team.forEach(kSortSize, [&](int s) {
    float d = INFINITY;
    int r = kNoRow;
    if (s < k) {
      d = bestDist[s];
      r = bestRow[s];
    } else if (s >= kMaxNeighbours && s - kMaxNeighbours < candidates) {
      candidate(s - kMaxNeighbours, d, r);
      if (d != d) d = INFINITY;  // NaN rows go last rather than breaking the order
    }
    dist[s] = d;
    row[s] = r;
  });
  team.sync();
  bitonicSort(team, dist, row, kSortSize);
  team.forEach(k, [&](int s) {
    bestDist[s] = dist[s];
    bestRow[s] = row[s];
  });
  team.sync();
}

/** k rounded up to even: Jacobi pairs indices, and an extra zero row/column is harmless. */
STRATA_HD inline int paddedOrder(int k) { return k + (k & 1); }

/**
 * gram (n×n row-major, n = paddedOrder(k)) = Y_c Y_cᵀ, where Y is the k×cols matrix with
 * Y(r, c) = value(r, c) and Y_c its columns centred (the neighbours minus their mean). Rows are
 * staged kGramTile columns at a time in `tile` (k × (kGramTile + 1) floats; the +1 keeps the
 * device's shared-memory reads conflict-free) with `mean` (kGramTile doubles). Products and
 * sums are double. Ends synchronised.
 */
STRATA_HD_TEMPLATE
template <class TeamT, class Value>
STRATA_HD void centredGram(const TeamT& team, int k, long long cols, float* tile, double* mean,
                           double* gram, Value&& value) {
  const int n = paddedOrder(k);
  constexpr int stride = kGramTile + 1;
  team.forEach(n * n, [&](int e) { gram[e] = 0.0; });
  team.sync();
  for (long long c0 = 0; c0 < cols; c0 += kGramTile) {
    const int width = int(cols - c0 < kGramTile ? cols - c0 : kGramTile);
    team.forEach(k * width, [&](int t) {
      const int r = t / width;
      const int c = t % width;
      tile[r * stride + c] = value(r, c0 + c);
    });
    team.sync();
    team.forEach(width, [&](int c) {
      double sum = 0;
      for (int r = 0; r < k; ++r) sum += double(tile[r * stride + c]);
      mean[c] = sum / double(k);
    });
    team.sync();
    team.forEach(k * k, [&](int e) {
      const int r1 = e / k;
      const int r2 = e % k;
      double sum = 0;
      for (int c = 0; c < width; ++c)
        sum +=
            (double(tile[r1 * stride + c]) - mean[c]) * (double(tile[r2 * stride + c]) - mean[c]);
      gram[r1 * n + r2] += sum;
    });
    team.sync();
  }
}

/** Player at `slot` in `round` of the circle-method round robin over n (even) players. */
STRATA_HD inline int roundRobinPlayer(int slot, int round, int n) {
  return slot == 0 ? 0 : 1 + (slot - 1 + round) % (n - 1);
}

constexpr int kMaxJacobiSweeps = 40;

/**
 * Largest eigenvalue of the symmetric n×n row-major matrix `a` (n even, destroyed), by cyclic
 * Jacobi with the parallel round-robin ordering (Golub & Van Loan, Matrix Computations 4th ed.,
 * §8.5.2 and §8.5.5): each round rotates n/2 disjoint index pairs at once. Sweeps stop when the
 * off-diagonal Frobenius norm is below 1e-14 of the whole norm. Scratch: `cosine`, `sine` (n/2
 * doubles each), `rowOff` (n doubles). Every thread returns the same value.
 */
STRATA_HD_TEMPLATE
template <class TeamT>
STRATA_HD double jacobiLargestEigenvalue(const TeamT& team, double* a, int n, double* cosine,
                                         double* sine, double* rowOff) {
  const int pairs = n / 2;
  for (int sweep = 0; sweep < kMaxJacobiSweeps; ++sweep) {
    team.forEach(n, [&](int i) {
      double off = 0;
      for (int j = 0; j < n; ++j)
        if (j != i) off += a[i * n + j] * a[i * n + j];
      rowOff[i] = off;
    });
    team.sync();
    // Every thread sums the same values in the same order, so all take the same branch.
    double off = 0, diagonal = 0;
    for (int i = 0; i < n; ++i) {
      off += rowOff[i];
      diagonal += a[i * n + i] * a[i * n + i];
    }
    team.sync();  // nobody rewrites a or rowOff before every thread has read them
    if (!(off > 1e-28 * (off + diagonal))) break;  // also stops on an all-zero matrix
    for (int round = 0; round < n - 1; ++round) {
      // Rotation (c, s) that zeroes a_pq: Golub & Van Loan Algorithm 8.5.1 (sym.schur2).
      team.forEach(pairs, [&](int i) {
        const int p = roundRobinPlayer(i, round, n);
        const int q = roundRobinPlayer(n - 1 - i, round, n);
        const double apq = a[p * n + q];
        double c = 1, s = 0;
        if (apq != 0) {
          const double tau = (a[q * n + q] - a[p * n + p]) / (2 * apq);
          const double t = (tau >= 0 ? 1.0 : -1.0) / (fabs(tau) + sqrt(1 + tau * tau));
          c = 1 / sqrt(1 + t * t);
          s = t * c;
        }
        cosine[i] = c;
        sine[i] = s;
      });
      team.sync();
      // A ← JᵀA: rows p and q of every pair (disjoint rows).
      team.forEach(pairs * n, [&](int t) {
        const int i = t / n;
        const int j = t % n;
        const int p = roundRobinPlayer(i, round, n);
        const int q = roundRobinPlayer(n - 1 - i, round, n);
        const double c = cosine[i], s = sine[i];
        const double apj = a[p * n + j], aqj = a[q * n + j];
        a[p * n + j] = c * apj - s * aqj;
        a[q * n + j] = s * apj + c * aqj;
      });
      team.sync();
      // A ← AJ: columns p and q of every pair (disjoint columns); a_pq = a_qp = 0 by design.
      team.forEach(pairs * n, [&](int t) {
        const int i = t / n;
        const int r = t % n;
        const int p = roundRobinPlayer(i, round, n);
        const int q = roundRobinPlayer(n - 1 - i, round, n);
        const double c = cosine[i], s = sine[i];
        const double arp = a[r * n + p], arq = a[r * n + q];
        a[r * n + p] = c * arp - s * arq;
        a[r * n + q] = s * arp + c * arq;
        if (r == p) a[r * n + q] = 0;
        if (r == q) a[r * n + p] = 0;
      });
      team.sync();
    }
  }
  double largest = a[0];
  for (int i = 1; i < n; ++i) largest = a[i * n + i] > largest ? a[i * n + i] : largest;
  return largest;
}

}  // namespace strata::geometry::cuda_detail
