#pragma once
// The geometry backends: one interface, chosen at run time (`--device cpu|cuda|auto`). The CPU
// backend uses Eigen, Spectra and the system BLAS; the CUDA backend cuBLAS, cuSOLVER and
// kernels of our own, and exists only in builds made with nvcc.

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "geometry/proxy_options.h"

namespace strata::geometry {

/** The three proxies of one layer (DESIGN.md). */
struct ProxyValues {
  double curvature = 0;      // m_curv = median_i 1/λ_max(C_i)
  double monotonicity = 0;   // m_mono
  double effectiveRank = 0;  // k_eff = tr(Σ)/λ_max(Σ)
};

/** One evaluation of the proxies, with the by-products the views plot. */
struct ProxyResult {
  ProxyValues values;
  /** Leading eigenvalues of the normalised Σ (options.normalisation), descending. */
  std::vector<double> spectrum;
  /** λ_max(C_i) of every anchor's neighbourhood, in anchor order. */
  std::vector<double> localLambdaMax;
  /** Under `standardise`: dimensions of zero variance, left at 0 (0 otherwise). */
  int64_t constantDimensions = 0;
  /** Wall seconds of each stage, in order, when the backend was asked to time them
   *  (GeometryBackend::timeStages) and can; empty otherwise. */
  std::vector<std::pair<std::string, double>> stageSeconds;
};

/** One evaluation of a batch (GeometryBackend::computeBatch): computeProxies' arguments. */
struct ProxyRequest {
  std::vector<float> rowWeights;  // empty: every row counts once
  TokenSampling sampling;
  ProxyOptions options;
  /**
   * {begin, end} with begin < end when the weights are 1 except rows [begin, end), which are 0
   * (a delete-one-block jackknife): a backend may then derive Σ from the whole layer's, computed
   * once per batch (the CPU backend does; its values agree to float32 rounding). {0, 0}: none.
   */
  std::pair<int64_t, int64_t> deletedBlock{0, 0};
};

/** What one request of a batch gave: its result, or the exception computeProxies threw. */
struct ProxyOutcome {
  ProxyResult result;
  std::exception_ptr error;  // null when `result` holds the evaluation
};

class GeometryBackend {
 public:
  virtual ~GeometryBackend() = default;
  /** For logs and reports, e.g. "CPU: Eigen + OpenBLAS, 2 threads" or "CUDA: NVIDIA H200". */
  virtual std::string description() const = 0;
  /** Whether computeProxies fills ProxyResult::stageSeconds (for benchmarks: on a device this
   *  waits for each stage to finish, which the untimed path never does). Default: ignored. */
  virtual void timeStages(bool on) { (void)on; }
  /**
   * Proxies of one layer. `rowWeights` empty: every row counts once. Otherwise one
   * non-negative integer multiplicity per row (a bootstrap resample): Σ and the mean are the
   * weighted ones (a row of weight w counts as w copies), anchors and pairs come from
   * `sampling`, and neighbours are searched among the distinct rows of positive weight, so a
   * resampled duplicate never becomes its own neighbour at distance 0.
   * Throws std::invalid_argument for shapes the options cannot work with (fewer than k + 1
   * rows, a sampling index out of range).
   */
  virtual ProxyResult computeProxies(const HiddenStates& states, std::span<const float> rowWeights,
                                     const TokenSampling& sampling,
                                     const ProxyOptions& options) = 0;

  /**
   * Evaluates every request on `states` as computeProxies would and returns one outcome per
   * request, in order; an exception of one request is kept in its outcome, not thrown.
   * `completed(done)` is called on the calling thread as evaluations finish, with how many have
   * (not necessarily after each one, but always with the total at the end); an exception it
   * throws (a cancellation) stops the batch once the evaluations in flight end, and is rethrown.
   * The default runs the requests one after another. The CPU backend runs them side by side,
   * one per thread with a workspace each (a bootstrap's resamples are independent).
   */
  virtual std::vector<ProxyOutcome> computeBatch(const HiddenStates& states,
                                                 std::span<const ProxyRequest> requests,
                                                 const std::function<void(int64_t)>& completed);

  /**
   * Host memory one lane of computeBatch holds for an N×d layer under `options` (its scratch,
   * kept from one call to the next), for the memory plan (geometry/scan_memory.h). 0 where the
   * work lies in a device's memory.
   */
  virtual int64_t laneBytes(int64_t rows, int64_t cols, const ProxyOptions& options) const;
  /** The lanes computeBatch would run side by side when memory allows (CPU: its threads). */
  virtual int laneThreads() const { return 1; }
  /** At most `lanes` lanes from now on: what the memory plan left room for. */
  virtual void limitLanes(int lanes) { (void)lanes; }
};

enum class DeviceChoice { Auto, Cpu, Cuda };

/** Parses "auto", "cpu" or "cuda"; throws ConfigError otherwise. */
DeviceChoice parseDeviceChoice(const std::string& text);

/** Whether this build has the CUDA backend and a usable device; `why` says why not. */
bool cudaBackendAvailable(std::string* why = nullptr);

/**
 * Auto: CUDA when available, else CPU. Cuda: throws strata::Error with the reason when the
 * build has no CUDA backend or no device is present.
 */
std::unique_ptr<GeometryBackend> makeGeometryBackend(DeviceChoice choice);

/**
 * The CPU backend (always present). It keeps its large scratch buffers between calls (a
 * bootstrap makes many), so one object serves one computeProxies call at a time; use one
 * backend per thread for concurrent work.
 */
std::unique_ptr<GeometryBackend> makeCpuBackend();

}  // namespace strata::geometry
