// The CUDA geometry backend: DESIGN.md's proxies on one CUDA device, matching the CPU backend
// (core/geometry/cpu/) within 1e-4 relative; geometry_cuda_test.cpp compares the two.
//
// What runs where (one layer, N rows × d columns, M anchors, P pairs, k neighbours):
//  * The rows are uploaded once per call (N·d floats) in blocks through pinned staging buffers
//    (staged_upload.h), each block folded in while the next is on its way: weighted column sums
//    (double) and, by cublasSsyrk, S_c = Σ_i w_i (x_i − c)(x_i − c)ᵀ around the first block's
//    plain mean c, each block's float result added into a double d×d matrix (so the float
//    accumulation runs over at most a few thousand rows). Then the weighted mean μ,
//    S = S_c − W (μ − c)(μ − c)ᵀ (cublasDsyr), tr S by cublasDasum, Σ_ij = s_i s_j S_ij/(W − 1)
//    and x_ij ← s_j(x_ij − μ_j) in place, the scales s_j per the normalisation (`trace`:
//    s = sqrt(d(W − 1)/tr S) for all j; `standardise`: 1/σ_j).
//  * Spectrum head and λ_max(Σ): Lanczos with full reorthogonalisation in double
//    (geometry/lanczos_spectrum.h on device_krylov_space.h: dsymv and dgemv, ~130–210 steps for
//    64 values of a power-law spectrum at d = 4,096), not a full eigendecomposition, whose FP64
//    tridiagonalisation costs ~0.1 s at d = 4,096 whatever N. Where Lanczos does not converge in
//    its basis (flat spectra, whose head is a dense cluster), cusolverDnDsyevd (double,
//    eigenvalues only) gives the values instead. m_mono (Rayleigh):
//    cusolverDnDpotrf of Σ + εI, then per block of pairs the directions u (double),
//    cublasDtrsm for L⁻¹u and column norms: uᵀPu/uᵀu = ‖L⁻¹u‖²/‖u‖²; the mean is taken on the
//    host, skipping u = 0. min-eig: 1/(λ_max + ε).
//  * m_curv: per batch of anchors, cublasSgemm of the anchors against blocks of candidate rows
//    (rows of positive weight, kCandidateBlock at a time), distances ‖a‖² + ‖b‖² − 2⟨a, b⟩ in
//    float, and one thread block per anchor that merges the block into its k nearest rows with a
//    bitonic sort on (distance, row) — ties go to the lower row, the anchor's own row never
//    counts. Then one thread block per anchor forms the centred k×k Gram of its neighbours
//    (double) and finds λ_max by parallel cyclic Jacobi; λ_max(C_i) = λ_max(Gram)/(k − 1),
//    floored at 1e-12. Median of 1/λ_max(C_i) on the host.
// Precision: rows, anchor distances and the covariance blocks are float (as on the CPU);
// everything d×d, the directions u, the Grams and all sums are double. cuBLAS runs in its
// default math mode, which never uses TF32 for float products.
// Limits: k ≤ 64 (the Gram lives in shared memory; larger k is refused with a message that
// names the CPU backend), N < 2^31 rows. Device memory: N·d floats (kept for the next call) +
// two or three d×d doubles + the Lanczos basis (d × at most 512 doubles for 64 values) +
// O((anchor batch + candidate block)·d + anchor batch · candidate block). Host: two pinned
// staging buffers of 64 MiB, kept for the backend's life.
// Threading: one computeProxies at a time per backend object (its stream and library handles
// are its own); separate objects may run concurrently.

#include "geometry/cuda/cuda_backend.h"

#include <algorithm>
#include <limits>
#include <string>

#include "common/error.h"
#include "geometry/cuda/cuda_backend_impl.h"
#include "geometry/cuda/cuda_status.h"
#include "geometry/cuda/stage_clock.h"
#include "geometry/median.h"

namespace strata::geometry {
namespace cuda_detail {
namespace {

constexpr double kLambdaFloor = kLambdaMaxFloor;  // floor of λ_max(C_i), as on the CPU

}  // namespace

CudaBackend::CudaBackend() {
  checkCuda(cudaGetDevice(&m_device), "cudaGetDevice");
  cudaDeviceProp properties{};
  checkCuda(cudaGetDeviceProperties(&properties, m_device), "cudaGetDeviceProperties");
  m_description = std::string("CUDA: ") + properties.name + " (device " + std::to_string(m_device) +
                  ", compute capability " + std::to_string(properties.major) + "." +
                  std::to_string(properties.minor) + ", " +
                  std::to_string(properties.totalGlobalMem >> 30) + " GiB)";
  cudaStream_t stream = nullptr;
  checkCuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  m_stream.reset(stream);
  cublasHandle_t cublas = nullptr;
  checkCublas(cublasCreate(&cublas), "cublasCreate");
  m_cublas.reset(cublas);
  checkCublas(cublasSetStream(cublas, stream), "cublasSetStream");
  // Default math: float products stay IEEE float (no TF32), as on the CPU.
  checkCublas(cublasSetMathMode(cublas, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
  cusolverDnHandle_t cusolver = nullptr;
  checkCusolver(cusolverDnCreate(&cusolver), "cusolverDnCreate");
  m_cusolver.reset(cusolver);
  checkCusolver(cusolverDnSetStream(cusolver, stream), "cusolverDnSetStream");
}

ProxyResult CudaBackend::computeProxies(const HiddenStates& states,
                                        std::span<const float> rowWeights,
                                        const TokenSampling& sampling,
                                        const ProxyOptions& options) {
  ProxyResult result;
  StageClock clock(m_timeStages, stream(), result.stageSeconds);
  const CheckedInputs in = checkInputs(states, rowWeights, sampling, options);
  checkCuda(cudaSetDevice(m_device), "cudaSetDevice");  // the caller's thread may be new
  clock.lap("checks (host)");
  Normalised x = normalise(states, rowWeights, in, options.normalisation);
  clock.lap("upload, mean and covariance");
  const int64_t d = in.cols;
  const double epsilon = options.ridgeFactor * x.trace / double(d);

  result.constantDimensions = x.constantDimensions;
  if (options.curvature) {
    result.localLambdaMax = neighbourhoodLambdaMax(x, in);
    for (double& lambda : result.localLambdaMax) lambda = std::max(lambda, kLambdaFloor);
    result.values.curvature = curvatureFromLambdaMax(result.localLambdaMax);
    clock.lap("m_curv: nearest neighbours and local λ_max");
  } else {
    result.values.curvature = std::numeric_limits<double>::quiet_NaN();
  }

  if (options.monotonicity == MonotonicityMode::Rayleigh) {
    result.values.monotonicity = meanRayleighQuotient(x, in, epsilon);
    clock.lap("m_mono: Cholesky and triangular solves");
  }
  const int64_t kept = std::clamp<int64_t>(options.spectrumSize, 1, d);
  std::string how;
  result.spectrum = leadingEigenvalues(x, d, kept, how);
  clock.lap("spectrum head (" + how + ")");
  const double lambdaMax = result.spectrum.front();
  if (options.monotonicity == MonotonicityMode::MinEigenvalue)
    result.values.monotonicity = 1 / (lambdaMax + epsilon);
  result.values.effectiveRank = x.trace / lambdaMax;
  m_rowsCache = std::move(x.rows);
  return result;
}

}  // namespace cuda_detail

std::unique_ptr<GeometryBackend> makeCudaBackend() {
  std::string why;
  if (!cudaDeviceAvailable(&why)) throw Error("cannot use the CUDA geometry backend: " + why);
  return std::make_unique<cuda_detail::CudaBackend>();
}

}  // namespace strata::geometry
