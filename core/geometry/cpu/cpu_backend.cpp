// The CPU geometry backend: Eigen + Spectra + the system BLAS, OpenMP for per-anchor work.
// Every step and convention is written out in docs/geometry.md.

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "geometry/backend.h"
#include "geometry/cpu/blas_runtime.h"
#include "geometry/cpu/covariance.h"
#include "geometry/cpu/jackknife_covariance.h"
#include "geometry/cpu/local_curvature.h"
#include "geometry/cpu/nearest_neighbours.h"
#include "geometry/cpu/proxy_lanes.h"
#include "geometry/cpu/row_normalisation.h"
#include "geometry/cpu/workspace.h"
#include "geometry/median.h"

namespace strata::geometry {

namespace {

void checkSampling(const HiddenStates& states, std::span<const float> weights,
                   const TokenSampling& sampling, const ProxyOptions& options) {
  const auto check = [&](int64_t row, const char* what) {
    if (row < 0 || row >= states.rows)
      throw std::invalid_argument(std::string("token sampling: ") + what + " row " +
                                  std::to_string(row) +
                                  " is out of range (N = " + std::to_string(states.rows) + ")");
    if (!weights.empty() && !(weights[row] > 0))
      throw std::invalid_argument(std::string("token sampling: ") + what + " row " +
                                  std::to_string(row) + " has weight 0");
  };
  if (sampling.anchors.empty()) throw std::invalid_argument("token sampling has no anchors");
  for (int64_t row : sampling.anchors) check(row, "anchor");
  if (options.monotonicity == MonotonicityMode::Rayleigh && sampling.pairs.empty())
    throw std::invalid_argument("token sampling has no pairs (m_mono's Rayleigh form needs them)");
  for (const auto& [a, b] : sampling.pairs) {
    check(a, "pair");
    check(b, "pair");
  }
}

/** The scratch one lane's workspace holds for an n×d layer with `directions` pairs and
 *  `anchors` anchors (0 without m_curv): workspace.h's buffers at their largest. */
int64_t laneScratch(int64_t n, int64_t d, int64_t directions, int64_t anchors) {
  return 4 * n * d + 12 * d * d + 4 * d * directions + 4 * anchors * d +
         4 * std::min<int64_t>(n, cpu::rowBlockLength(d, 8192)) * d;
}

class CpuBackend final : public GeometryBackend {
 public:
  std::string description() const override {
    const int threads = std::max(cpu::blasThreads(), omp_get_max_threads());
    return "CPU: Eigen + Spectra + " + cpu::blasName() + ", " + std::to_string(threads) +
           (threads == 1 ? " thread" : " threads");
  }

  ProxyResult computeProxies(const HiddenStates& states, std::span<const float> rowWeights,
                             const TokenSampling& sampling, const ProxyOptions& options) override {
    return evaluate(states, rowWeights, sampling, options, nullptr, {0, 0});
  }

  std::vector<ProxyOutcome> computeBatch(const HiddenStates& states,
                                         std::span<const ProxyRequest> requests,
                                         const std::function<void(int64_t)>& completed) override {
    // The jackknife blocks' Σ from the layer's Gram, computed here once (the BLAS threaded).
    std::optional<cpu::CentredGram> total;
    for (const ProxyRequest& r : requests)
      if (downdatable(states, r)) {
        total = cpu::centredGram(states, m_workspace);
        break;
      }
    const auto one = [&](CpuBackend& backend, const ProxyRequest& r, ProxyOutcome& out) {
      try {
        const bool downdate = total && downdatable(states, r);
        out.result = backend.evaluate(states, r.rowWeights, r.sampling, r.options,
                                      downdate ? &*total : nullptr, r.deletedBlock);
      } catch (...) {
        out.error = std::current_exception();
      }
    };
    std::vector<ProxyOutcome> out(requests.size());
    const int lanes = std::min(
        m_laneLimit, cpu::laneCount(int64_t(requests.size()), batchLaneBytes(states, requests)));
    while (m_lanes.size() + 1 < size_t(lanes)) m_lanes.push_back(std::make_unique<CpuBackend>());
    cpu::runLanes(
        lanes, int64_t(requests.size()),
        [&](int lane, int64_t i) {
          one(lane == 0 ? *this : *m_lanes[size_t(lane - 1)], requests[size_t(i)], out[size_t(i)]);
        },
        completed);
    return out;
  }

  int64_t laneBytes(int64_t rows, int64_t cols, const ProxyOptions& options) const override {
    const int64_t directions =
        options.monotonicity == MonotonicityMode::Rayleigh ? options.directions : 0;
    return laneScratch(rows, cols, directions,
                       options.curvature ? std::min(options.anchors, rows) : 0);
  }
  int laneThreads() const override { return std::max(1, omp_get_max_threads()); }
  void limitLanes(int lanes) override { m_laneLimit = std::max(1, lanes); }

 private:
  /** Whether `r` is a jackknife block whose Σ can come from the layer's Gram (no m_curv, which
   *  needs the normalised rows themselves), its weights what its deletedBlock says. */
  static bool downdatable(const HiddenStates& states, const ProxyRequest& r) {
    const auto [begin, end] = r.deletedBlock;
    if (r.options.curvature || !(0 <= begin && begin < end && end <= states.rows) ||
        int64_t(r.rowWeights.size()) != states.rows)
      return false;
    for (int64_t i = 0; i < states.rows; ++i)
      if (r.rowWeights[size_t(i)] != ((i >= begin && i < end) ? 0.0f : 1.0f)) return false;
    return true;
  }

  /** computeProxies, with Σ from `total` less the rows `block` when `total` is given. */
  ProxyResult evaluate(const HiddenStates& states, std::span<const float> rowWeights,
                       const TokenSampling& sampling, const ProxyOptions& options,
                       const cpu::CentredGram* total, std::pair<int64_t, int64_t> block) {
    options.validate();
    const cpu::RowNormalisation norm =
        cpu::normaliseRows(states, rowWeights, options.normalisation);
    const int64_t k = options.neighbours;
    if (options.curvature && static_cast<int64_t>(norm.rows.size()) < k + 1)
      throw std::invalid_argument("m_curv with k = " + std::to_string(k) +
                                  " neighbours needs at least " + std::to_string(k + 1) +
                                  " rows of positive weight (got " +
                                  std::to_string(norm.rows.size()) + ")");
    checkSampling(states, rowWeights, sampling, options);

    ProxyResult result;
    result.constantDimensions = norm.constantDimensions;
    const int64_t d = norm.dims;
    // Σ (under `trace`, tr Σ = d up to float32 rounding; k_eff and ε use the trace of the Σ
    // computed).
    double* sigma = m_workspace.sigma.take<double>(d * d);
    float* normalised = nullptr;
    const float* floatSigma = nullptr;  // Σ's float32 triangle, where Σ was computed in float32
    if (total != nullptr) {
      cpu::downdatedCovariance(states, *total, norm, block.first, block.second, m_workspace, sigma);
    } else {
      // One float32 copy of the normalised rows of positive weight serves every product below.
      // Without m_curv only Σ reads it, so a resample's rows carry their sqrt(w) at once.
      normalised = m_workspace.normalised.take<float>(norm.rows.size() * d);
      const bool rootWeighted = !norm.rootWeights.empty() && !options.curvature;
      cpu::writeNormalisedRows(states, norm, norm.rows.data(), int64_t(norm.rows.size()),
                               rootWeighted ? norm.rootWeights.data() : nullptr, normalised, true);
      floatSigma = cpu::normalisedCovariance(normalised, norm, rootWeighted, m_workspace, sigma);
    }
    double trace = 0;
    for (int64_t j = 0; j < d; ++j) trace += sigma[j * d + j];
    result.spectrum = cpu::leadingEigenvalues(sigma, d, options.spectrumSize, floatSigma);
    const double lambdaMax = result.spectrum.front();
    result.values.effectiveRank = trace / lambdaMax;

    const double epsilon = options.ridgeFactor * trace / double(d);
    if (options.monotonicity == MonotonicityMode::MinEigenvalue) {
      result.values.monotonicity = 1.0 / (lambdaMax + epsilon);
    } else {
      for (int64_t j = 0; j < d; ++j) sigma[j * d + j] += epsilon;
      cpu::choleskyInPlace(sigma, d);
      result.values.monotonicity = cpu::meanRayleighQuotient(
          sigma, states, norm, sampling.pairs, m_workspace.directions, m_workspace.lower);
    }

    if (!options.curvature) {
      result.values.curvature = std::numeric_limits<double>::quiet_NaN();
      return result;
    }
    const cpu::NeighbourLists neighbours =
        cpu::nearestNeighbours(normalised, norm, sampling.anchors, k, m_workspace);
    result.localLambdaMax = cpu::neighbourhoodLambdaMax(normalised, norm, neighbours);
    result.values.curvature = curvatureFromLambdaMax(result.localLambdaMax);
    return result;
  }

  /** The scratch one more lane needs for the largest request: its workspace's buffers. */
  static int64_t batchLaneBytes(const HiddenStates& states,
                                std::span<const ProxyRequest> requests) {
    int64_t directions = 0, anchors = 0;
    for (const ProxyRequest& r : requests) {
      directions = std::max<int64_t>(directions, int64_t(r.sampling.pairs.size()));
      if (r.options.curvature) anchors = std::max<int64_t>(anchors, r.options.anchors);
    }
    return laneScratch(states.rows, states.cols, directions, anchors);
  }

  cpu::Workspace m_workspace;  // reused by every call: one call at a time per backend
  int m_laneLimit = std::numeric_limits<int>::max();  // the memory plan's (limitLanes)
  /** The backends of lanes 1, 2, … (lane 0 is this one), kept with their workspaces. */
  std::vector<std::unique_ptr<CpuBackend>> m_lanes;
};

}  // namespace

std::unique_ptr<GeometryBackend> makeCpuBackend() { return std::make_unique<CpuBackend>(); }

}  // namespace strata::geometry
