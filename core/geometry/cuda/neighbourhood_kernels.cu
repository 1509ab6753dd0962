// The m_curv kernels: one thread block per anchor merges each block of candidate distances into
// the anchor's k nearest rows, then builds the k×k Gram of the centred neighbours and finds its
// largest eigenvalue. The algorithms themselves are in neighbourhood_math.h (shared with the
// host tests); these kernels only give them shared memory and global-memory accessors.

#include <cuda_runtime.h>

#include "geometry/cuda/kernels.h"
#include "geometry/cuda/neighbourhood_math.h"

namespace strata::geometry::cuda_detail {
namespace {

constexpr int kThreads = 256;

__global__ void resetNearestKernel(float* bestDist, int32_t* bestRow, int64_t count) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    bestDist[i] = INFINITY;
    bestRow[i] = kNoRow;
  }
}

// Shared memory: 2 × kSortSize × 4 bytes = 32 KiB.
__global__ void __launch_bounds__(kThreads)
    mergeNearestKernel(const float* dots, int64_t dotsStride, int32_t candidates,
                       const int32_t* candidateRows, const float* rowNorm2,
                       const int32_t* anchorRows, int32_t k, float* bestDist, int32_t* bestRow) {
  __shared__ float dist[kSortSize];
  __shared__ int row[kSortSize];
  const int64_t anchor = blockIdx.x;
  const int self = anchorRows[anchor];
  const float selfNorm2 = rowNorm2[self];
  const float* anchorDots = dots + anchor * dotsStride;
  mergeNearest(Team{}, dist, row, k, bestDist + anchor * k, bestRow + anchor * k, candidates,
               [&](int c, float& d, int& r) {
                 const int candidateRow = candidateRows[c];
                 if (candidateRow == self) return;  // stays (+inf, kNoRow)
                 // Not clamped at 0, exactly as on the CPU (only the order matters).
                 d = selfNorm2 + rowNorm2[candidateRow] - 2.0f * anchorDots[c];
                 r = candidateRow;
               });
}

// Shared memory: Gram 64×64 doubles (32 KiB) + a 64×33-float tile + small scratch ≈ 42 KiB.
__global__ void __launch_bounds__(kThreads)
    neighbourhoodLambdaMaxKernel(const float* x, int64_t cols, const int32_t* bestRow, int32_t k,
                                 double* lambdaMax) {
  __shared__ double gram[kMaxNeighbours * kMaxNeighbours];
  __shared__ float tile[kMaxNeighbours * (kGramTile + 1)];
  __shared__ double mean[kGramTile];
  __shared__ double cosine[kMaxNeighbours / 2];
  __shared__ double sine[kMaxNeighbours / 2];
  __shared__ double rowOff[kMaxNeighbours];
  const int64_t anchor = blockIdx.x;
  const int32_t* neighbours = bestRow + anchor * k;
  const Team team;
  centredGram(team, k, cols, tile, mean, gram,
              [&](int r, long long c) { return x[int64_t(neighbours[r]) * cols + c]; });
  const double largest = jacobiLargestEigenvalue(team, gram, paddedOrder(k), cosine, sine, rowOff);
  if (threadIdx.x == 0) lambdaMax[anchor] = fmax(largest / double(k - 1), 1e-12);
}

}  // namespace

cudaError_t launchResetNearest(float* bestDist, int32_t* bestRow, int64_t count,
                               cudaStream_t stream) {
  const int64_t blocks = (count + kThreads - 1) / kThreads;
  resetNearestKernel<<<unsigned(blocks < 1 ? 1 : (blocks > 65535 ? 65535 : blocks)), kThreads, 0,
                       stream>>>(bestDist, bestRow, count);
  return cudaGetLastError();
}

cudaError_t launchMergeNearest(const float* dots, int64_t dotsStride, int32_t candidates,
                               const int32_t* candidateRows, const float* rowNorm2,
                               const int32_t* anchorRows, int32_t anchors, int32_t k,
                               float* bestDist, int32_t* bestRow, cudaStream_t stream) {
  if (anchors <= 0) return cudaSuccess;
  mergeNearestKernel<<<unsigned(anchors), kThreads, 0, stream>>>(
      dots, dotsStride, candidates, candidateRows, rowNorm2, anchorRows, k, bestDist, bestRow);
  return cudaGetLastError();
}

cudaError_t launchNeighbourhoodLambdaMax(const float* x, int64_t cols, const int32_t* bestRow,
                                         int32_t anchors, int32_t k, double* lambdaMax,
                                         cudaStream_t stream) {
  if (anchors <= 0) return cudaSuccess;
  neighbourhoodLambdaMaxKernel<<<unsigned(anchors), kThreads, 0, stream>>>(x, cols, bestRow, k,
                                                                           lambdaMax);
  return cudaGetLastError();
}

}  // namespace strata::geometry::cuda_detail
