#include "geometry/cuda/device_krylov_space.h"

#include "geometry/cuda/cuda_status.h"

namespace strata::geometry::cuda_detail {

DeviceKrylovSpace::DeviceKrylovSpace(cublasHandle_t cublas, cudaStream_t stream,
                                     const double* lowerSymmetric, int64_t d, int64_t capacity)
    : m_cublas(cublas),
      m_stream(stream),
      m_matrix(lowerSymmetric),
      m_d(d),
      m_capacity(capacity),
      m_basis(d * capacity),
      m_residual(d),
      m_projection(capacity),
      m_alpha(capacity) {}

void DeviceKrylovSpace::setResidual(std::span<const double> v) { m_residual.upload(v, m_stream); }

void DeviceKrylovSpace::multiply(int64_t j) {
  const double one = 1, zero = 0;
  checkCublas(cublasDsymv(m_cublas, CUBLAS_FILL_MODE_LOWER, int(m_d), &one, m_matrix, int(m_d),
                          basisVector(j), 1, &zero, m_residual.data(), 1),
              "cublasDsymv");
}

void DeviceKrylovSpace::orthogonalise(int64_t count, bool recordDiagonal) {
  const double one = 1, zero = 0, minusOne = -1;
  double* alpha = m_alpha.data() + (count - 1);
  const double* last = m_projection.data() + (count - 1);
  for (int pass = 0; pass < 2; ++pass) {
    // h = Qᵀ r, then r −= Q h.
    checkCublas(cublasDgemv(m_cublas, CUBLAS_OP_T, int(m_d), int(count), &one, m_basis.data(),
                            int(m_d), m_residual.data(), 1, &zero, m_projection.data(), 1),
                "cublasDgemv (Qᵀr)");
    checkCublas(cublasDgemv(m_cublas, CUBLAS_OP_N, int(m_d), int(count), &minusOne, m_basis.data(),
                            int(m_d), m_projection.data(), 1, &one, m_residual.data(), 1),
                "cublasDgemv (r − Qh)");
    if (!recordDiagonal) continue;
    if (pass == 0)
      checkCublas(cublasDcopy(m_cublas, 1, last, 1, alpha, 1), "cublasDcopy (α)");
    else
      checkCublas(cublasDaxpy(m_cublas, 1, &one, last, 1, alpha, 1), "cublasDaxpy (α)");
  }
}

double DeviceKrylovSpace::residualNorm() {
  double norm = 0;  // host pointer mode: cuBLAS waits for the result
  checkCublas(cublasDnrm2(m_cublas, int(m_d), m_residual.data(), 1, &norm), "cublasDnrm2");
  return norm;
}

void DeviceKrylovSpace::appendResidual(int64_t j, double scale) {
  checkCublas(cublasDcopy(m_cublas, int(m_d), m_residual.data(), 1, basisVector(j), 1),
              "cublasDcopy (q_j)");
  checkCublas(cublasDscal(m_cublas, int(m_d), &scale, basisVector(j), 1), "cublasDscal (q_j)");
}

std::vector<double> DeviceKrylovSpace::diagonal(int64_t count) {
  std::vector<double> host(static_cast<size_t>(count));
  m_alpha.download(host, m_stream);
  return host;
}

}  // namespace strata::geometry::cuda_detail
