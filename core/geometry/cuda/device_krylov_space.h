#pragma once
// The Lanczos driver's KrylovSpace (geometry/lanczos_spectrum.h) on one CUDA device: Σ, the
// basis and the residual in device memory, every product a cuBLAS call on the backend's stream
// (dsymv for A·q, two dgemv per Gram–Schmidt pass). One host synchronisation per step (the
// norm); the diagonal of T stays on the device until the driver checks convergence.
// Internal to core/geometry/cuda/.

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <span>
#include <vector>

#include "geometry/cuda/device_memory.h"
#include "geometry/lanczos_spectrum.h"

namespace strata::geometry::cuda_detail {

class DeviceKrylovSpace final : public KrylovSpace {
 public:
  /** `lowerSymmetric`: d×d column-major, lower triangle read; it must outlive this space. */
  DeviceKrylovSpace(cublasHandle_t cublas, cudaStream_t stream, const double* lowerSymmetric,
                    int64_t d, int64_t capacity);

  int64_t dimension() const override { return m_d; }
  int64_t capacity() const override { return m_capacity; }
  void setResidual(std::span<const double> v) override;
  void multiply(int64_t j) override;
  void orthogonalise(int64_t count, bool recordDiagonal) override;
  double residualNorm() override;
  void appendResidual(int64_t j, double scale) override;
  std::vector<double> diagonal(int64_t count) override;

 private:
  double* basisVector(int64_t j) { return m_basis.data() + j * m_d; }

  cublasHandle_t m_cublas;
  cudaStream_t m_stream;
  const double* m_matrix;
  int64_t m_d, m_capacity;
  DeviceBuffer<double> m_basis;       // d × capacity, column-major: q_0, q_1, …
  DeviceBuffer<double> m_residual;    // r
  DeviceBuffer<double> m_projection;  // h = Qᵀ r, capacity entries
  DeviceBuffer<double> m_alpha;       // α_0 … α_{capacity−1}
};

}  // namespace strata::geometry::cuda_detail
