// The CUDA backend's per-token work (see cuda_backend.cpp for the whole): m_mono's Rayleigh
// quotients over the sampled pairs' directions, and m_curv's k nearest neighbours and local
// λ_max per anchor.

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/error.h"
#include "geometry/cuda/cuda_backend_impl.h"
#include "geometry/cuda/cuda_status.h"
#include "geometry/cuda/kernels.h"
#include "geometry/cuda/neighbourhood_math.h"

namespace strata::geometry::cuda_detail {
namespace {

constexpr int64_t kAnchorBatch = 2048;  // anchors per GEMM against a candidate block
constexpr int64_t kPairBlock = 4096;    // difference directions per triangular solve

}  // namespace

double CudaBackend::meanRayleighQuotient(const Normalised& x, const CheckedInputs& in,
                                         double epsilon) {
  const int64_t d = in.cols;
  // L Lᵀ = Σ + εI; then uᵀ(Σ + εI)^{-1}u = ‖L⁻¹u‖².
  DeviceBuffer<double> chol(d * d);
  checkCuda(cudaMemcpyAsync(chol.data(), x.sigma.data(), chol.size() * sizeof(double),
                            cudaMemcpyDeviceToDevice, stream()),
            "cudaMemcpyAsync (device to device)");
  checkCuda(launchAddToDiagonal(chol.data(), d, epsilon, stream()), "diagonal kernel");
  DeviceBuffer<int> info(1);
  int workSize = 0;
  checkCusolver(cusolverDnDpotrf_bufferSize(m_cusolver.get(), CUBLAS_FILL_MODE_LOWER, int(d),
                                            chol.data(), int(d), &workSize),
                "cusolverDnDpotrf_bufferSize");
  {
    DeviceBuffer<double> work(std::max(workSize, 1));
    checkCusolver(cusolverDnDpotrf(m_cusolver.get(), CUBLAS_FILL_MODE_LOWER, int(d), chol.data(),
                                   int(d), work.data(), workSize, info.data()),
                  "cusolverDnDpotrf");
    int status = 0;
    info.download({&status, 1}, stream());
    if (status != 0)
      throw Error(
          "CUDA geometry backend: Σ + εI is not positive definite (cusolverDnDpotrf "
          "info " +
          std::to_string(status) + ", ε = " + std::to_string(epsilon) + ")");
  }

  const int64_t pairs = int64_t(in.first.size());
  const int64_t block = std::min(pairs, kPairBlock);
  DeviceBuffer<int32_t> first(block), second(block);
  DeviceBuffer<double> directions(block * d), norm2(block), solved2(block);
  std::vector<double> hostNorm2(static_cast<size_t>(block));
  std::vector<double> hostSolved2(static_cast<size_t>(block));
  double sum = 0;
  int64_t counted = 0;
  const double one = 1;
  for (int64_t p0 = 0; p0 < pairs; p0 += block) {
    const int64_t count = std::min(block, pairs - p0);
    first.upload({in.first.data() + p0, size_t(count)}, stream());
    second.upload({in.second.data() + p0, size_t(count)}, stream());
    checkCuda(launchGatherDifferences(x.rows.data(), d, first.data(), second.data(), count,
                                      directions.data(), stream()),
              "difference kernel");
    checkCuda(launchColumnSquaredNorms(directions.data(), d, count, norm2.data(), stream()),
              "column norms kernel");
    checkCublas(cublasDtrsm(m_cublas.get(), CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                            CUBLAS_DIAG_NON_UNIT, int(d), int(count), &one, chol.data(), int(d),
                            directions.data(), int(d)),
                "cublasDtrsm");
    checkCuda(launchColumnSquaredNorms(directions.data(), d, count, solved2.data(), stream()),
              "column norms kernel");
    norm2.download({hostNorm2.data(), size_t(count)}, stream());
    solved2.download({hostSolved2.data(), size_t(count)}, stream());
    for (int64_t i = 0; i < count; ++i) {
      if (hostNorm2[size_t(i)] == 0) continue;  // u = 0: a duplicated row, no direction
      sum += hostSolved2[size_t(i)] / hostNorm2[size_t(i)];
      ++counted;
    }
  }
  if (counted == 0)
    throw std::invalid_argument(
        "m_mono: every sampled pair joins two identical rows (no direction u ≠ 0)");
  return sum / double(counted);
}

std::vector<double> CudaBackend::neighbourhoodLambdaMax(const Normalised& x,
                                                        const CheckedInputs& in) {
  const int64_t d = in.cols, k = in.k;
  const int64_t anchors = int64_t(in.anchors.size());
  const int64_t candidates = int64_t(in.active.size());
  const bool everyRow = candidates == in.rows;  // candidate blocks are slices of the rows

  DeviceBuffer<int32_t> active(candidates), anchorRows(anchors);
  active.upload(in.active, stream());
  anchorRows.upload(in.anchors, stream());
  DeviceBuffer<float> bestDist(anchors * k);
  DeviceBuffer<int32_t> bestRow(anchors * k);
  checkCuda(launchResetNearest(bestDist.data(), bestRow.data(), anchors * k, stream()),
            "reset kernel");
  DeviceBuffer<double> lambdas(anchors);

  const int64_t batch = std::min(anchors, kAnchorBatch);
  DeviceBuffer<float> anchorBlock(batch * d), dots(batch * kCandidateBlock);
  DeviceBuffer<float> candidateBlock(everyRow ? 0 : kCandidateBlock * d);
  const float one = 1, zero = 0;
  for (int64_t a0 = 0; a0 < anchors; a0 += batch) {
    const int64_t count = std::min(batch, anchors - a0);
    checkCuda(launchGatherRows(x.rows.data(), d, anchorRows.data() + a0, count, anchorBlock.data(),
                               stream()),
              "anchor gather kernel");
    for (int64_t c0 = 0; c0 < candidates; c0 += kCandidateBlock) {
      const int64_t width = std::min<int64_t>(kCandidateBlock, candidates - c0);
      const float* block = x.rows.data() + c0 * d;
      if (!everyRow) {
        checkCuda(launchGatherRows(x.rows.data(), d, active.data() + c0, width,
                                   candidateBlock.data(), stream()),
                  "candidate gather kernel");
        block = candidateBlock.data();
      }
      // dots (column-major width × count, leading dimension kCandidateBlock) = Bᵀ·A, i.e.
      // dots[a·kCandidateBlock + c] = ⟨candidate c, anchor a⟩.
      checkCublas(cublasSgemm(m_cublas.get(), CUBLAS_OP_T, CUBLAS_OP_N, int(width), int(count),
                              int(d), &one, block, int(d), anchorBlock.data(), int(d), &zero,
                              dots.data(), int(kCandidateBlock)),
                  "cublasSgemm");
      checkCuda(
          launchMergeNearest(dots.data(), kCandidateBlock, int32_t(width), active.data() + c0,
                             x.rowNorm2.data(), anchorRows.data() + a0, int32_t(count), int32_t(k),
                             bestDist.data() + a0 * k, bestRow.data() + a0 * k, stream()),
          "nearest-neighbour merge kernel");
    }
    checkCuda(
        launchNeighbourhoodLambdaMax(x.rows.data(), d, bestRow.data() + a0 * k, int32_t(count),
                                     int32_t(k), lambdas.data() + a0, stream()),
        "neighbourhood λ_max kernel");
  }
  std::vector<double> host(static_cast<size_t>(anchors));
  lambdas.download(host, stream());
  return host;
}

}  // namespace strata::geometry::cuda_detail
