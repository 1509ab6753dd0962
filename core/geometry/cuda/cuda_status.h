#pragma once
// Turns the status codes of the CUDA runtime, cuBLAS and cuSOLVER into strata::Error, naming
// the call that failed and the library's own words for the failure. Internal to
// core/geometry/cuda/: every call of those libraries in the backend goes through one of these.

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusolverDn.h>

#include <string>

namespace strata::geometry::cuda_detail {

/** "cudaMalloc failed: out of memory (cudaErrorMemoryAllocation)" and the like. */
std::string describeCudaError(cudaError_t status);

/** Throws strata::Error("CUDA geometry backend: <call> failed: …") unless status is success. */
void checkCuda(cudaError_t status, const char* call);
void checkCublas(cublasStatus_t status, const char* call);
void checkCusolver(cusolverStatus_t status, const char* call);

}  // namespace strata::geometry::cuda_detail
