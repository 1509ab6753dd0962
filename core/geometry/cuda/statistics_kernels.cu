// Element-wise and reduction kernels of the CUDA geometry backend: the weighted mean, the
// weighted centred rows that cuBLAS turns into Σ, the normalisation of the rows, and the
// gathers of anchor rows and difference directions. Launchers are declared in kernels.h.

#include <cuda_runtime.h>

#include "geometry/cuda/kernels.h"

namespace strata::geometry::cuda_detail {
namespace {

constexpr int kThreads = 256;

/** Blocks for a grid-stride loop over `count` elements (capped; the loop covers the rest). */
unsigned gridFor(int64_t count) {
  const int64_t blocks = (count + kThreads - 1) / kThreads;
  return unsigned(blocks < 1 ? 1 : (blocks > (1 << 20) ? (1 << 20) : blocks));
}

__device__ inline int64_t globalThread() { return int64_t(blockIdx.x) * blockDim.x + threadIdx.x; }
__device__ inline int64_t gridThreads() { return int64_t(gridDim.x) * blockDim.x; }

__global__ void weightedColumnSumsKernel(const float* x, const float* weights, int64_t rows,
                                         int64_t cols, int64_t rowsPerChunk, double* partial) {
  const int64_t c = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  const int64_t begin = int64_t(blockIdx.y) * rowsPerChunk;
  const int64_t end = begin + rowsPerChunk < rows ? begin + rowsPerChunk : rows;
  double sum = 0;
  for (int64_t r = begin; r < end; ++r) {
    const double w = weights ? double(weights[r]) : 1.0;
    if (w > 0) sum += w * double(x[r * cols + c]);
  }
  partial[int64_t(blockIdx.y) * cols + c] = sum;
}

__global__ void meanFromPartialsKernel(const double* partial, int64_t chunks, int64_t cols,
                                       double invTotalWeight, double* mean) {
  for (int64_t c = globalThread(); c < cols; c += gridThreads()) {
    double sum = 0;
    for (int64_t chunk = 0; chunk < chunks; ++chunk) sum += partial[chunk * cols + c];
    mean[c] = sum * invTotalWeight;
  }
}

__global__ void weightedCentredRowsKernel(const float* x, const float* weights, const double* mean,
                                          int64_t rowBegin, int64_t rowCount, int64_t cols,
                                          float* out) {
  const int64_t count = rowCount * cols;
  for (int64_t i = globalThread(); i < count; i += gridThreads()) {
    const int64_t r = rowBegin + i / cols;
    const int64_t c = i % cols;
    const double w = weights ? double(weights[r]) : 1.0;
    out[i] = w > 0 ? float(sqrt(w) * (double(x[r * cols + c]) - mean[c])) : 0.0f;
  }
}

__global__ void accumulateLowerKernel(const float* part, double* sum, int64_t n) {
  const int64_t count = n * n;
  for (int64_t i = globalThread(); i < count; i += gridThreads()) {
    const int64_t col = i / n;
    const int64_t row = i % n;
    if (row >= col) sum[i] += double(part[i]);
  }
}

__global__ void addToDiagonalKernel(double* a, int64_t n, double value) {
  for (int64_t i = globalThread(); i < n; i += gridThreads()) a[i * n + i] += value;
}

__global__ void scaleSymmetricKernel(double* a, const double* s, int64_t n, double factor) {
  const int64_t count = n * n;
  for (int64_t i = globalThread(); i < count; i += gridThreads())
    a[i] *= factor * s[i / n] * s[i % n];
}

__global__ void normaliseRowsKernel(float* x, const double* mean, int64_t rows, int64_t cols,
                                    const double* scale) {
  const int64_t count = rows * cols;
  for (int64_t i = globalThread(); i < count; i += gridThreads())
    x[i] = float(scale[i % cols] * (double(x[i]) - mean[i % cols]));
}

/** One warp per row (or per column of a column-major matrix): strided sum, shuffle reduce. */
template <class T>
__device__ double warpSquaredNorm(const T* v, int64_t length) {
  double sum = 0;
  for (int64_t i = threadIdx.x % 32; i < length; i += 32) sum += double(v[i]) * double(v[i]);
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  return sum;
}

__global__ void rowSquaredNormsKernel(const float* x, int64_t rows, int64_t cols, float* norm2) {
  const int64_t warps = gridThreads() / 32;
  for (int64_t r = globalThread() / 32; r < rows; r += warps) {
    const double sum = warpSquaredNorm(x + r * cols, cols);
    if (threadIdx.x % 32 == 0) norm2[r] = float(sum);
  }
}

__global__ void columnSquaredNormsKernel(const double* m, int64_t rows, int64_t cols, double* out) {
  const int64_t warps = gridThreads() / 32;
  for (int64_t j = globalThread() / 32; j < cols; j += warps) {
    const double sum = warpSquaredNorm(m + j * rows, rows);
    if (threadIdx.x % 32 == 0) out[j] = sum;
  }
}

__global__ void gatherRowsKernel(const float* x, int64_t cols, const int32_t* rowIndex,
                                 int64_t count, float* out) {
  const int64_t total = count * cols;
  for (int64_t i = globalThread(); i < total; i += gridThreads())
    out[i] = x[int64_t(rowIndex[i / cols]) * cols + i % cols];
}

__global__ void gatherDifferencesKernel(const float* x, int64_t cols, const int32_t* first,
                                        const int32_t* second, int64_t count, double* out) {
  const int64_t total = count * cols;
  for (int64_t i = globalThread(); i < total; i += gridThreads()) {
    const int64_t pair = i / cols;
    const int64_t c = i % cols;
    out[i] =
        double(x[int64_t(first[pair]) * cols + c]) - double(x[int64_t(second[pair]) * cols + c]);
  }
}

}  // namespace

cudaError_t probeKernelImage() {
  cudaFuncAttributes attributes;
  return cudaFuncGetAttributes(&attributes, scaleSymmetricKernel);
}

cudaError_t launchWeightedColumnSums(const float* x, const float* weights, int64_t rows,
                                     int64_t cols, int64_t rowsPerChunk, double* partial,
                                     cudaStream_t stream) {
  const int64_t chunks = (rows + rowsPerChunk - 1) / rowsPerChunk;
  const dim3 grid(unsigned((cols + kThreads - 1) / kThreads), unsigned(chunks));
  weightedColumnSumsKernel<<<grid, kThreads, 0, stream>>>(x, weights, rows, cols, rowsPerChunk,
                                                          partial);
  return cudaGetLastError();
}

cudaError_t launchMeanFromPartials(const double* partial, int64_t chunks, int64_t cols,
                                   double invTotalWeight, double* mean, cudaStream_t stream) {
  meanFromPartialsKernel<<<gridFor(cols), kThreads, 0, stream>>>(partial, chunks, cols,
                                                                 invTotalWeight, mean);
  return cudaGetLastError();
}

cudaError_t launchWeightedCentredRows(const float* x, const float* weights, const double* mean,
                                      int64_t rowBegin, int64_t rowCount, int64_t cols, float* out,
                                      cudaStream_t stream) {
  weightedCentredRowsKernel<<<gridFor(rowCount * cols), kThreads, 0, stream>>>(
      x, weights, mean, rowBegin, rowCount, cols, out);
  return cudaGetLastError();
}

cudaError_t launchAccumulateLower(const float* part, double* sum, int64_t n, cudaStream_t stream) {
  accumulateLowerKernel<<<gridFor(n * n), kThreads, 0, stream>>>(part, sum, n);
  return cudaGetLastError();
}

cudaError_t launchScaleSymmetric(double* a, const double* s, int64_t n, double factor,
                                 cudaStream_t stream) {
  scaleSymmetricKernel<<<gridFor(n * n), kThreads, 0, stream>>>(a, s, n, factor);
  return cudaGetLastError();
}

cudaError_t launchAddToDiagonal(double* a, int64_t n, double value, cudaStream_t stream) {
  addToDiagonalKernel<<<gridFor(n), kThreads, 0, stream>>>(a, n, value);
  return cudaGetLastError();
}

cudaError_t launchNormaliseRows(float* x, const double* mean, int64_t rows, int64_t cols,
                                const double* scale, cudaStream_t stream) {
  normaliseRowsKernel<<<gridFor(rows * cols), kThreads, 0, stream>>>(x, mean, rows, cols, scale);
  return cudaGetLastError();
}

cudaError_t launchRowSquaredNorms(const float* x, int64_t rows, int64_t cols, float* norm2,
                                  cudaStream_t stream) {
  rowSquaredNormsKernel<<<gridFor(rows * 32), kThreads, 0, stream>>>(x, rows, cols, norm2);
  return cudaGetLastError();
}

cudaError_t launchGatherRows(const float* x, int64_t cols, const int32_t* rowIndex, int64_t count,
                             float* out, cudaStream_t stream) {
  gatherRowsKernel<<<gridFor(count * cols), kThreads, 0, stream>>>(x, cols, rowIndex, count, out);
  return cudaGetLastError();
}

cudaError_t launchGatherDifferences(const float* x, int64_t cols, const int32_t* first,
                                    const int32_t* second, int64_t count, double* out,
                                    cudaStream_t stream) {
  gatherDifferencesKernel<<<gridFor(count * cols), kThreads, 0, stream>>>(x, cols, first, second,
                                                                          count, out);
  return cudaGetLastError();
}

cudaError_t launchColumnSquaredNorms(const double* m, int64_t rows, int64_t cols, double* out,
                                     cudaStream_t stream) {
  columnSquaredNormsKernel<<<gridFor(cols * 32), kThreads, 0, stream>>>(m, rows, cols, out);
  return cudaGetLastError();
}

}  // namespace strata::geometry::cuda_detail
