#include "geometry/cuda/cuda_status.h"

#include "common/error.h"

namespace strata::geometry::cuda_detail {
namespace {

// cuSOLVER has no status-to-text function; these are the words of its documentation.
const char* cusolverStatusText(cusolverStatus_t status) {
  switch (status) {
    case CUSOLVER_STATUS_SUCCESS:
      return "success";
    case CUSOLVER_STATUS_NOT_INITIALIZED:
      return "the library was not initialised";
    case CUSOLVER_STATUS_ALLOC_FAILED:
      return "resource allocation failed";
    case CUSOLVER_STATUS_INVALID_VALUE:
      return "an invalid value was passed";
    case CUSOLVER_STATUS_ARCH_MISMATCH:
      return "the device does not support the operation";
    case CUSOLVER_STATUS_EXECUTION_FAILED:
      return "the kernel failed to launch on the GPU";
    case CUSOLVER_STATUS_INTERNAL_ERROR:
      return "an internal operation failed";
    case CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED:
      return "the matrix type is not supported";
    case CUSOLVER_STATUS_NOT_SUPPORTED:
      return "the operation is not supported";
    default:
      return "unknown cuSOLVER status";
  }
}

[[noreturn]] void fail(const char* call, const std::string& what) {
  throw Error(std::string("CUDA geometry backend: ") + call + " failed: " + what);
}

}  // namespace

std::string describeCudaError(cudaError_t status) {
  return std::string(cudaGetErrorString(status)) + " (" + cudaGetErrorName(status) + ")";
}

void checkCuda(cudaError_t status, const char* call) {
  if (status == cudaSuccess) return;
  fail(call, describeCudaError(status));
}

void checkCublas(cublasStatus_t status, const char* call) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  fail(call, std::string(cublasGetStatusString(status)) + " (cuBLAS status " +
                 std::to_string(int(status)) + ")");
}

void checkCusolver(cusolverStatus_t status, const char* call) {
  if (status == CUSOLVER_STATUS_SUCCESS) return;
  fail(call, std::string(cusolverStatusText(status)) + " (cuSOLVER status " +
                 std::to_string(int(status)) + ")");
}

}  // namespace strata::geometry::cuda_detail
