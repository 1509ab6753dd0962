// Checking a call's inputs on the host (see cuda_inputs.h).

#include "geometry/cuda/cuda_inputs.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "geometry/cuda/neighbourhood_math.h"

namespace strata::geometry::cuda_detail {

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

}  // namespace strata::geometry::cuda_detail
