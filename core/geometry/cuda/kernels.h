#pragma once
// Launchers of the CUDA geometry kernels (statistics_kernels.cu, neighbourhood_kernels.cu), for
// the host code in cuda_backend.cpp. Internal to core/geometry/cuda/. Each launcher enqueues
// its kernel on `stream` and returns cudaGetLastError(): the caller checks it (cuda_status.h).
// Matrices of rows are row-major (row r, column c at r·cols + c); d×d matrices are column-major,
// as cuBLAS and cuSOLVER want them.

#include <cuda_runtime_api.h>

#include <cstdint>

namespace strata::geometry::cuda_detail {

// --- statistics_kernels.cu ----------------------------------------------------------------

/** True when the device has an image of this build's kernels (probes one kernel). */
cudaError_t probeKernelImage();

/**
 * partial[chunk·cols + c] = Σ_{r in chunk} w_r·x(r, c) over the rows of positive weight, for
 * chunks of rowsPerChunk rows; `weights` null means every weight is 1.
 */
cudaError_t launchWeightedColumnSums(const float* x, const float* weights, int64_t rows,
                                     int64_t cols, int64_t rowsPerChunk, double* partial,
                                     cudaStream_t stream);
/** mean[c] = (Σ_chunk partial[chunk·cols + c]) · invTotalWeight, chunks summed in order. */
cudaError_t launchMeanFromPartials(const double* partial, int64_t chunks, int64_t cols,
                                   double invTotalWeight, double* mean, cudaStream_t stream);
/**
 * out (rowCount × cols) = sqrt(w_r)·(x(r, ·) − mean) for r in [rowBegin, rowBegin + rowCount);
 * rows of weight ≤ 0 become zero rows. `weights` null: every weight is 1.
 */
cudaError_t launchWeightedCentredRows(const float* x, const float* weights, const double* mean,
                                      int64_t rowBegin, int64_t rowCount, int64_t cols, float* out,
                                      cudaStream_t stream);
/** sum(i, j) += part(i, j) on the lower triangle (i ≥ j) of column-major n×n matrices. */
cudaError_t launchAccumulateLower(const float* part, double* sum, int64_t n, cudaStream_t stream);
/** a(i, i) += value on the n×n matrix a. */
cudaError_t launchAddToDiagonal(double* a, int64_t n, double value, cudaStream_t stream);
/** a(i, j) *= factor·s[i]·s[j] on the n×n column-major matrix a. */
cudaError_t launchScaleSymmetric(double* a, const double* s, int64_t n, double factor,
                                 cudaStream_t stream);
/** x(r, c) ← scale[c]·(x(r, c) − mean[c]) in place, every row. */
cudaError_t launchNormaliseRows(float* x, const double* mean, int64_t rows, int64_t cols,
                                const double* scale, cudaStream_t stream);
/** norm2[r] = ‖x(r, ·)‖² (summed in double, stored as float). */
cudaError_t launchRowSquaredNorms(const float* x, int64_t rows, int64_t cols, float* norm2,
                                  cudaStream_t stream);
/** out(i, ·) = x(rowIndex[i], ·) for i in [0, count). */
cudaError_t launchGatherRows(const float* x, int64_t cols, const int32_t* rowIndex, int64_t count,
                             float* out, cudaStream_t stream);
/**
 * out(i, ·) = x(first[i], ·) − x(second[i], ·) in double, for i in [0, count): row-major
 * count × cols, i.e. the column-major cols × count matrix whose columns are the directions u.
 */
cudaError_t launchGatherDifferences(const float* x, int64_t cols, const int32_t* first,
                                    const int32_t* second, int64_t count, double* out,
                                    cudaStream_t stream);
/** out[j] = Σ_i m(i, j)² for the column-major rows × cols matrix m. */
cudaError_t launchColumnSquaredNorms(const double* m, int64_t rows, int64_t cols, double* out,
                                     cudaStream_t stream);

// --- neighbourhood_kernels.cu -------------------------------------------------------------

/** bestDist[i] = +inf, bestRow[i] = kNoRow for i in [0, count): no neighbour found yet. */
cudaError_t launchResetNearest(float* bestDist, int32_t* bestRow, int64_t count,
                               cudaStream_t stream);
/**
 * Merges one candidate block into every anchor's k nearest rows. dots(a, c) = ⟨anchor a,
 * candidate c⟩ at dots[a·dotsStride + c]; candidate c is row candidateRows[c]; anchor a is row
 * anchorRows[a]; squared distances are ‖a‖² + ‖c‖² − 2⟨a, c⟩ (float, as on the CPU) with the norms
 * from rowNorm2; the anchor's own row never counts. bestDist/bestRow: anchors × k.
 */
cudaError_t launchMergeNearest(const float* dots, int64_t dotsStride, int32_t candidates,
                               const int32_t* candidateRows, const float* rowNorm2,
                               const int32_t* anchorRows, int32_t anchors, int32_t k,
                               float* bestDist, int32_t* bestRow, cudaStream_t stream);
/**
 * lambdaMax[a] = max(λ_max(Gram of anchor a's centred neighbours) / (k − 1), 1e-12): the
 * largest eigenvalue of the neighbours' covariance (ddof = 1), from the k×k Gram.
 */
cudaError_t launchNeighbourhoodLambdaMax(const float* x, int64_t cols, const int32_t* bestRow,
                                         int32_t anchors, int32_t k, double* lambdaMax,
                                         cudaStream_t stream);

}  // namespace strata::geometry::cuda_detail
