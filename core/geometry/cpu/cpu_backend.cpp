// The CPU geometry backend: Eigen + Spectra + the system BLAS, OpenMP for per-anchor work.
// Every step and convention is written out in docs/geometry.md.

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "geometry/backend.h"
#include "geometry/cpu/blas_runtime.h"
#include "geometry/cpu/covariance.h"
#include "geometry/cpu/local_curvature.h"
#include "geometry/cpu/nearest_neighbours.h"
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

class CpuBackend final : public GeometryBackend {
 public:
  std::string description() const override {
    const int threads = std::max(cpu::blasThreads(), omp_get_max_threads());
    return "CPU: Eigen + Spectra + " + cpu::blasName() + ", " + std::to_string(threads) +
           (threads == 1 ? " thread" : " threads");
  }

  ProxyResult computeProxies(const HiddenStates& states, std::span<const float> rowWeights,
                             const TokenSampling& sampling, const ProxyOptions& options) override {
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
    // One float32 copy of the normalised rows of positive weight serves every product below.
    float* normalised = m_workspace.normalised.take<float>(norm.rows.size() * d);
    cpu::normalisedRows(states, norm, normalised);
    // Σ (under `trace`, tr Σ = d up to float32 rounding; k_eff and ε use the trace of the Σ
    // computed).
    double* sigma = m_workspace.sigma.take<double>(d * d);
    cpu::normalisedCovariance(normalised, norm, m_workspace, sigma);
    double trace = 0;
    for (int64_t j = 0; j < d; ++j) trace += sigma[j * d + j];
    result.spectrum = cpu::leadingEigenvalues(sigma, d, options.spectrumSize);
    const double lambdaMax = result.spectrum.front();
    result.values.effectiveRank = trace / lambdaMax;

    const double epsilon = options.ridgeFactor * trace / double(d);
    if (options.monotonicity == MonotonicityMode::MinEigenvalue) {
      result.values.monotonicity = 1.0 / (lambdaMax + epsilon);
    } else {
      for (int64_t j = 0; j < d; ++j) sigma[j * d + j] += epsilon;
      cpu::choleskyInPlace(sigma, d);
      result.values.monotonicity =
          cpu::meanRayleighQuotient(sigma, states, norm, sampling.pairs, m_workspace.directions);
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

 private:
  cpu::Workspace m_workspace;  // reused by every call: one call at a time per backend
};

}  // namespace

std::unique_ptr<GeometryBackend> makeCpuBackend() { return std::make_unique<CpuBackend>(); }

}  // namespace strata::geometry
