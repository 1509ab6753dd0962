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
#include <chrono>
#include <cmath>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/error.h"
#include "geometry/cuda/cuda_status.h"
#include "geometry/cuda/device_krylov_space.h"
#include "geometry/cuda/device_memory.h"
#include "geometry/cuda/kernels.h"
#include "geometry/cuda/neighbourhood_math.h"
#include "geometry/cuda/staged_upload.h"
#include "geometry/lanczos_spectrum.h"
#include "geometry/median.h"

namespace strata::geometry {
namespace {

using namespace cuda_detail;

constexpr int64_t kAnchorBatch = 2048;            // anchors per GEMM against a candidate block
constexpr int64_t kPairBlock = 4096;              // difference directions per triangular solve
constexpr double kLambdaFloor = kLambdaMaxFloor;  // floor of λ_max(C_i), as on the CPU
constexpr int64_t kMeanChunkRows = 512;           // rows per partial column sum (in double)

/** Rows per covariance block: ~16 Mi floats (64 MiB), a multiple of kMeanChunkRows. */
int64_t covarianceBlockRows(int64_t d) {
  const int64_t rows = std::clamp<int64_t>((int64_t(1) << 24) / d, kMeanChunkRows, 8192);
  return rows / kMeanChunkRows * kMeanChunkRows;
}

/** Wall seconds per stage into `out` when on: each lap waits for the stream to finish first. */
class StageClock {
 public:
  StageClock(bool on, cudaStream_t stream, std::vector<std::pair<std::string, double>>& out)
      : m_on(on), m_stream(stream), m_out(out), m_last(std::chrono::steady_clock::now()) {}
  void lap(const std::string& stage) {
    if (!m_on) return;
    checkCuda(cudaStreamSynchronize(m_stream), "cudaStreamSynchronize (stage timing)");
    const auto now = std::chrono::steady_clock::now();
    m_out.emplace_back(stage, std::chrono::duration<double>(now - m_last).count());
    m_last = now;
  }

 private:
  bool m_on;
  cudaStream_t m_stream;
  std::vector<std::pair<std::string, double>>& m_out;
  std::chrono::steady_clock::time_point m_last;
};

/** `cache` when it holds at least `count` elements, else a new buffer (the old one freed first). */
template <class T>
DeviceBuffer<T> takeAtLeast(DeviceBuffer<T>& cache, int64_t count) {
  if (int64_t(cache.size()) >= count) return std::move(cache);
  cache = DeviceBuffer<T>();
  return DeviceBuffer<T>(count);
}

/** Whether a device is usable, decided once per process (the answer does not change). */
struct Availability {
  bool usable = false;
  std::string why;
};

std::string cudaVersionText(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

/** Why the driver is "insufficient": missing altogether, or older than the runtime. */
std::string driverHint() {
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  if (driver == 0) return "; no NVIDIA driver is installed";
  return "; the NVIDIA driver supports CUDA " + cudaVersionText(driver) + ", this build needs " +
         cudaVersionText(runtime);
}

const Availability& availability() {
  static const Availability result = [] {
    Availability a;
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
      cudaGetLastError();  // clear it, so that later calls do not see it
      a.why = "no CUDA device: cudaGetDeviceCount returned " + describeCudaError(status);
      if (status == cudaErrorInsufficientDriver) a.why += driverHint();
      return a;
    }
    if (count == 0) {
      a.why = "no CUDA device: cudaGetDeviceCount found none";
      return a;
    }
    int device = 0;
    cudaDeviceProp properties{};
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaGetDeviceProperties(&properties, device) != cudaSuccess) {
      a.why = "CUDA device could not be queried: " + describeCudaError(cudaGetLastError());
      return a;
    }
    if (const cudaError_t probe = probeKernelImage(); probe != cudaSuccess) {
      cudaGetLastError();
      a.why = "CUDA device " + std::to_string(device) + " (" + properties.name +
              ", compute capability " + std::to_string(properties.major) + "." +
              std::to_string(properties.minor) +
              ") cannot run this build's kernels (built for CMAKE_CUDA_ARCHITECTURES): " +
              describeCudaError(probe);
      return a;
    }
    a.usable = true;
    return a;
  }();
  return result;
}

/** The host side of one call: checked inputs, indices narrowed to the kernels' int32. */
struct CheckedInputs {
  int64_t rows = 0, cols = 0;
  int32_t k = 0;
  double totalWeight = 0;              // W = Σ w
  std::vector<int32_t> active;         // rows of positive weight, ascending
  std::vector<int32_t> anchors;        // sampling.anchors
  std::vector<int32_t> first, second;  // sampling.pairs
};

CheckedInputs checkInputs(const HiddenStates& states, std::span<const float> weights,
                          const TokenSampling& sampling, const ProxyOptions& options) {
  options.validate();
  if (!states.data || states.rows < 1 || states.cols < 1)
    throw std::invalid_argument("geometry proxies need a non-empty matrix of hidden states");
  if (states.rows > std::numeric_limits<int32_t>::max())
    throw std::invalid_argument("the CUDA geometry backend handles fewer than 2^31 rows, got " +
                                std::to_string(states.rows));
  if (options.neighbours < 2 || options.neighbours > kMaxNeighbours)
    throw std::invalid_argument("the CUDA geometry backend handles 2 to " +
                                std::to_string(kMaxNeighbours) + " neighbours per anchor, got " +
                                std::to_string(options.neighbours) +
                                "; use --device cpu for this setting");
  if (!weights.empty() && int64_t(weights.size()) != states.rows)
    throw std::invalid_argument("row weights: " + std::to_string(weights.size()) + " weights for " +
                                std::to_string(states.rows) + " rows");
  CheckedInputs in;
  in.rows = states.rows;
  in.cols = states.cols;
  in.k = int32_t(options.neighbours);
  in.active.reserve(size_t(states.rows));
  for (int64_t r = 0; r < states.rows; ++r) {
    const double w = weights.empty() ? 1.0 : double(weights[size_t(r)]);
    if (!(w >= 0) || !std::isfinite(w))
      throw std::invalid_argument("row weight " + std::to_string(r) + " is negative or not finite");
    in.totalWeight += w;
    if (w > 0) in.active.push_back(int32_t(r));
  }
  if (options.curvature && int64_t(in.active.size()) < options.neighbours + 1)
    throw std::invalid_argument(
        "local curvature needs at least k + 1 = " + std::to_string(options.neighbours + 1) +
        " rows of positive weight, got " + std::to_string(in.active.size()));
  if (!(in.totalWeight > 1))
    throw std::invalid_argument("the covariance needs a total row weight above 1");
  // The sampling rules of the CPU backend: rows in range and of positive weight.
  const auto index = [&](int64_t row, const char* what) {
    if (row < 0 || row >= states.rows)
      throw std::invalid_argument(std::string("token sampling: ") + what + " row " +
                                  std::to_string(row) +
                                  " is out of range (N = " + std::to_string(states.rows) + ")");
    if (!weights.empty() && !(weights[size_t(row)] > 0))
      throw std::invalid_argument(std::string("token sampling: ") + what + " row " +
                                  std::to_string(row) + " has weight 0");
    return int32_t(row);
  };
  if (sampling.anchors.empty()) throw std::invalid_argument("token sampling has no anchors");
  if (options.monotonicity == MonotonicityMode::Rayleigh && sampling.pairs.empty())
    throw std::invalid_argument("token sampling has no pairs (m_mono's Rayleigh form needs them)");
  for (const int64_t a : sampling.anchors) in.anchors.push_back(index(a, "anchor"));
  for (const auto& [a, b] : sampling.pairs) {
    in.first.push_back(index(a, "pair"));
    in.second.push_back(index(b, "pair"));
  }
  return in;
}

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

}  // namespace

bool cudaDeviceAvailable(std::string* why) {
  const Availability& a = availability();
  if (why) *why = a.why;
  return a.usable;
}

std::unique_ptr<GeometryBackend> makeCudaBackend() {
  std::string why;
  if (!cudaDeviceAvailable(&why)) throw Error("cannot use the CUDA geometry backend: " + why);
  return std::make_unique<CudaBackend>();
}

}  // namespace strata::geometry
