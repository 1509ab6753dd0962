#pragma once
// Internal to the CUDA backend: the backend object, whose work is split by job over
// cuda_backend.cpp (setup and one call's order of work), cuda_covariance.cpp (upload,
// normalisation, Σ and its spectrum) and cuda_local_proxies.cpp (m_mono's Rayleigh quotients and
// m_curv's neighbourhoods). cuda_backend.cpp describes the whole.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "geometry/backend.h"
#include "geometry/cuda/cuda_inputs.h"
#include "geometry/cuda/device_memory.h"
#include "geometry/cuda/staged_upload.h"

namespace strata::geometry::cuda_detail {

class CudaBackend final : public GeometryBackend {
 public:
  CudaBackend();
  std::string description() const override { return m_description; }
  void timeStages(bool on) override { m_timeStages = on; }
  ProxyResult computeProxies(const HiddenStates& states, std::span<const float> rowWeights,
                             const TokenSampling& sampling, const ProxyOptions& options) override;

 private:
  /** The normalised rows on the device and Σ (lower triangle, column-major). */
  struct Normalised {
    DeviceBuffer<float> rows;        // N×d, x_ij = s_j(x_ij − μ_j)
    DeviceBuffer<float> rowNorm2;    // ‖x_i‖²
    DeviceBuffer<double> sigma;      // d×d
    double trace = 0;                // tr Σ
    int64_t constantDimensions = 0;  // `standardise`: zero-variance dimensions (s_j = 0)
  };
  Normalised normalise(const HiddenStates& states, std::span<const float> weights,
                       const CheckedInputs& in, Normalisation mode);
  /** The `count` largest eigenvalues of Σ, descending (may destroy sigma); `how` says by what. */
  std::vector<double> leadingEigenvalues(Normalised& x, int64_t d, int64_t count, std::string& how);
  /** Every eigenvalue of Σ, ascending (destroys sigma). */
  std::vector<double> eigenvalues(DeviceBuffer<double>& sigma, int64_t d);
  /** Mean Rayleigh quotient of (Σ + εI)^{-1} over the pairs' directions. */
  double meanRayleighQuotient(const Normalised& x, const CheckedInputs& in, double epsilon);
  /** λ_max(C_i) of every anchor's neighbourhood, in anchor order. */
  std::vector<double> neighbourhoodLambdaMax(const Normalised& x, const CheckedInputs& in);

  cudaStream_t stream() const { return m_stream.get(); }

  int m_device = 0;
  std::string m_description;
  StreamHandle m_stream;
  CublasHandle m_cublas;
  CusolverHandle m_cusolver;
  StagedUpload m_upload;
  // The rows' device memory, kept from one call to the next (a layer after another of the same
  // shape allocates nothing): held until the backend is destroyed.
  DeviceBuffer<float> m_rowsCache;
  bool m_timeStages = false;
};

}  // namespace strata::geometry::cuda_detail
