// The CUDA backend's covariance work (see cuda_backend.cpp for the whole): the rows uploaded in
// blocks, their weighted mean, S and Σ in double, the rows normalised in place, and Σ's leading
// eigenvalues by Lanczos (cusolverDnDsyevd where Lanczos does not converge).

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/error.h"
#include "geometry/cuda/cuda_backend_impl.h"
#include "geometry/cuda/cuda_status.h"
#include "geometry/cuda/device_krylov_space.h"
#include "geometry/cuda/kernels.h"
#include "geometry/lanczos_spectrum.h"

namespace strata::geometry::cuda_detail {
namespace {

constexpr int64_t kMeanChunkRows = 512;  // rows per partial column sum (in double)

/** Rows per covariance block: ~16 Mi floats (64 MiB), a multiple of kMeanChunkRows. */
int64_t covarianceBlockRows(int64_t d) {
  const int64_t rows = std::clamp<int64_t>((int64_t(1) << 24) / d, kMeanChunkRows, 8192);
  return rows / kMeanChunkRows * kMeanChunkRows;
}

}  // namespace

CudaBackend::Normalised CudaBackend::normalise(const HiddenStates& states,
                                               std::span<const float> weights,
                                               const CheckedInputs& in, Normalisation mode) {
  const int64_t n = in.rows, d = in.cols;
  Normalised out;
  out.rows = takeAtLeast(m_rowsCache, n * d);
  DeviceBuffer<float> deviceWeights(int64_t(weights.size()));
  deviceWeights.upload(weights, stream());
  const float* w = weights.empty() ? nullptr : deviceWeights.data();

  // One pass over blocks of rows, each folded in as soon as it lands (the upload of the next
  // overlaps it): weighted column sums per chunk of kMeanChunkRows rows, and the shifted
  // S_c = Σ_i w_i (x_i − c)(x_i − c)ᵀ by a float syrk per block, summed in double. The shift c
  // is the first block's plain mean, close to μ, so centring on it loses nothing to rounding;
  // then S = S_c − W (μ − c)(μ − c)ᵀ.
  const int64_t blockRows = covarianceBlockRows(d);
  const int64_t chunks = (n + kMeanChunkRows - 1) / kMeanChunkRows;
  DeviceBuffer<double> partial(chunks * d), mean(d), shift(d);
  out.sigma = DeviceBuffer<double>(d * d);
  checkCuda(cudaMemsetAsync(out.sigma.data(), 0, out.sigma.size() * sizeof(double), stream()),
            "cudaMemsetAsync");
  {
    DeviceBuffer<float> centred(std::min(blockRows, n) * d), part(d * d);
    const float one = 1, zero = 0;
    for (int64_t r0 = 0; r0 < n; r0 += blockRows) {
      const int64_t count = std::min(blockRows, n - r0);
      float* block = out.rows.data() + r0 * d;
      m_upload.copy(states.data + r0 * d, block, count * d, stream());
      if (r0 == 0) {
        const int64_t shiftChunks = (count + kMeanChunkRows - 1) / kMeanChunkRows;
        checkCuda(launchWeightedColumnSums(block, nullptr, count, d, kMeanChunkRows, partial.data(),
                                           stream()),
                  "column sums kernel (shift)");
        checkCuda(launchMeanFromPartials(partial.data(), shiftChunks, d, 1.0 / double(count),
                                         shift.data(), stream()),
                  "shift kernel");
      }
      checkCuda(launchWeightedColumnSums(block, w ? w + r0 : nullptr, count, d, kMeanChunkRows,
                                         partial.data() + (r0 / kMeanChunkRows) * d, stream()),
                "weighted column sums kernel");
      checkCuda(launchWeightedCentredRows(out.rows.data(), w, shift.data(), r0, count, d,
                                          centred.data(), stream()),
                "weighted centring kernel");
      // Row-major count×d rows = column-major d×count: S_block = A·Aᵀ.
      checkCublas(cublasSsyrk(m_cublas.get(), CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, int(d),
                              int(count), &one, centred.data(), int(d), &zero, part.data(), int(d)),
                  "cublasSsyrk");
      checkCuda(launchAccumulateLower(part.data(), out.sigma.data(), d, stream()),
                "covariance accumulation kernel");
    }
  }
  checkCuda(launchMeanFromPartials(partial.data(), chunks, d, 1.0 / in.totalWeight, mean.data(),
                                   stream()),
            "mean kernel");
  {
    // δ = μ − c; S −= W δδᵀ on the lower triangle.
    DeviceBuffer<double> delta(d);
    const double minusOne = -1, minusW = -in.totalWeight;
    checkCublas(cublasDcopy(m_cublas.get(), int(d), mean.data(), 1, delta.data(), 1),
                "cublasDcopy (μ)");
    checkCublas(cublasDaxpy(m_cublas.get(), int(d), &minusOne, shift.data(), 1, delta.data(), 1),
                "cublasDaxpy (μ − c)");
    checkCublas(cublasDsyr(m_cublas.get(), CUBLAS_FILL_MODE_LOWER, int(d), &minusW, delta.data(), 1,
                           out.sigma.data(), int(d)),
                "cublasDsyr (shift correction)");
  }
  double traceS = 0;
  checkCublas(cublasDasum(m_cublas.get(), int(d), out.sigma.data(), int(d + 1), &traceS),
              "cublasDasum");
  if (!(traceS > 0) || !std::isfinite(traceS))
    throw std::invalid_argument("the hidden states have no variance (or are not finite): tr Σ = " +
                                std::to_string(traceS));
  // Σ_raw = S/(W − 1). The scale s_j of each dimension follows `mode` (as the CPU backend's
  // normaliseRows): 1, sqrt(d/tr Σ_raw), or 1/σ_j (0 for a constant dimension); then
  // Σ_ij = s_i s_j Σ_raw,ij and the rows x_ij ← s_j (x_ij − μ_j).
  DeviceBuffer<double> diagonal(d);
  checkCublas(cublasDcopy(m_cublas.get(), int(d), out.sigma.data(), int(d + 1), diagonal.data(), 1),
              "cublasDcopy");
  std::vector<double> variance(d);
  diagonal.download(variance, stream());
  for (double& v : variance) v /= in.totalWeight - 1;
  std::vector<double> scale(d, 1.0);
  if (mode == Normalisation::Trace) {
    scale.assign(d, std::sqrt(double(d) * (in.totalWeight - 1) / traceS));
  } else if (mode == Normalisation::Standardise) {
    for (int64_t j = 0; j < d; ++j) {
      scale[j] = variance[j] > 0 ? 1.0 / std::sqrt(variance[j]) : 0.0;
      if (!(variance[j] > 0)) ++out.constantDimensions;
    }
  }
  out.trace = 0;
  for (int64_t j = 0; j < d; ++j) out.trace += scale[j] * scale[j] * variance[j];
  DeviceBuffer<double> deviceScale(d);
  deviceScale.upload(scale, stream());
  checkCuda(launchScaleSymmetric(out.sigma.data(), deviceScale.data(), d,
                                 1.0 / (in.totalWeight - 1), stream()),
            "scale kernel");
  checkCuda(launchNormaliseRows(out.rows.data(), mean.data(), n, d, deviceScale.data(), stream()),
            "normalise kernel");
  out.rowNorm2 = DeviceBuffer<float>(n);
  checkCuda(launchRowSquaredNorms(out.rows.data(), n, d, out.rowNorm2.data(), stream()),
            "row norms kernel");
  return out;
}

std::vector<double> CudaBackend::leadingEigenvalues(Normalised& x, int64_t d, int64_t count,
                                                    std::string& how) {
  {
    DeviceKrylovSpace space(m_cublas.get(), stream(), x.sigma.data(), d, lanczosCapacity(d, count));
    LanczosSpectrum lanczos = lanczosLeadingEigenvalues(space, count, x.trace);
    how = "Lanczos, " + std::to_string(lanczos.steps) + " steps";
    if (lanczos.converged) return std::move(lanczos.values);
  }
  how += " without converging, then cusolverDnDsyevd";
  const std::vector<double> ascending = eigenvalues(x.sigma, d);
  return std::vector<double>(ascending.rbegin(), ascending.rbegin() + count);
}

std::vector<double> CudaBackend::eigenvalues(DeviceBuffer<double>& sigma, int64_t d) {
  DeviceBuffer<double> values(d);
  DeviceBuffer<int> info(1);
  int workSize = 0;
  checkCusolver(cusolverDnDsyevd_bufferSize(m_cusolver.get(), CUSOLVER_EIG_MODE_NOVECTOR,
                                            CUBLAS_FILL_MODE_LOWER, int(d), sigma.data(), int(d),
                                            values.data(), &workSize),
                "cusolverDnDsyevd_bufferSize");
  DeviceBuffer<double> work(std::max(workSize, 1));
  checkCusolver(
      cusolverDnDsyevd(m_cusolver.get(), CUSOLVER_EIG_MODE_NOVECTOR, CUBLAS_FILL_MODE_LOWER, int(d),
                       sigma.data(), int(d), values.data(), work.data(), workSize, info.data()),
      "cusolverDnDsyevd");
  int status = 0;
  info.download({&status, 1}, stream());
  if (status != 0)
    throw Error(
        "CUDA geometry backend: the eigenvalues of Σ did not converge (cusolverDnDsyevd "
        "info " +
        std::to_string(status) + ")");
  std::vector<double> host(static_cast<size_t>(d));
  values.download(host, stream());
  return host;
}

}  // namespace strata::geometry::cuda_detail
