#include "geometry/cpu/row_normalisation.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace strata::geometry::cpu {

namespace {

/**
 * Σ over the rows of positive weight of f(row, weight, accumulator), one accumulator of
 * `width` doubles per thread over a static partition, summed in thread order afterwards.
 */
template <typename RowFunction>
std::vector<double> reduceRows(const RowNormalisation& norm, std::span<const float> weights,
                               int64_t width, RowFunction&& f) {
  const int64_t count = static_cast<int64_t>(norm.rows.size());
  const int threads = std::max(1, std::min<int>(omp_get_max_threads(), int(count / 256) + 1));
  std::vector<std::vector<double>> partial(threads, std::vector<double>(width, 0.0));
#pragma omp parallel num_threads(threads)
  {
    // The team may be smaller than asked (inside a lane: one thread), so split over its size.
    const int team = omp_get_num_threads(), t = omp_get_thread_num();
    const int64_t begin = count * t / team, end = count * (t + 1) / team;
    double* acc = partial[t].data();
    for (int64_t r = begin; r < end; ++r) {
      const int64_t row = norm.rows[r];
      f(row, weights.empty() ? 1.0 : double(weights[row]), acc);
    }
  }
  std::vector<double> total(width, 0.0);
  for (const auto& p : partial)
    for (int64_t j = 0; j < width; ++j) total[j] += p[j];
  return total;
}

// The per-row loops below, compiled for AVX-512 and AVX2 as well (target_clones picks one when
// the program loads): a bootstrap normalises every resample, and on SSE2 these loops were ~5 % of
// a default `score --model` run. The file is built with -ffp-contract=off (core/CMakeLists.txt)
// and each column is summed over the rows in the same order in every clone, so all of them give
// the same bits.
#define STRATA_ROW_KERNEL [[gnu::target_clones("avx512f", "avx2", "default")]]

/** acc += w·x over d columns. */
STRATA_ROW_KERNEL void addWeightedRow(const float* x, double w, double* acc, int64_t d) {
  for (int64_t j = 0; j < d; ++j) acc[j] += w * x[j];
}

/** acc += w·(x − μ)² over d columns. */
STRATA_ROW_KERNEL void addWeightedSquares(const float* x, const double* mu, double w, double* acc,
                                          int64_t d) {
  for (int64_t j = 0; j < d; ++j) {
    const double c = double(x[j]) - mu[j];
    acc[j] += w * c * c;
  }
}

/** y = (x − μ)·s·f, rounded to float32. */
STRATA_ROW_KERNEL void writeScaledRow(const float* x, const double* mu, const double* scale,
                                      double f, float* y, int64_t d) {
  for (int64_t j = 0; j < d; ++j) y[j] = static_cast<float>((double(x[j]) - mu[j]) * scale[j] * f);
}

#undef STRATA_ROW_KERNEL

}  // namespace

RowNormalisation normaliseRows(const HiddenStates& states, std::span<const float> weights,
                               Normalisation mode) {
  if (states.data == nullptr || states.rows < 1 || states.cols < 1)
    throw std::invalid_argument("hidden states are empty (" + std::to_string(states.rows) + "×" +
                                std::to_string(states.cols) + ")");
  if (!weights.empty() && static_cast<int64_t>(weights.size()) != states.rows)
    throw std::invalid_argument(std::to_string(weights.size()) + " row weights for " +
                                std::to_string(states.rows) + " rows");
  const int64_t d = states.cols;
  RowNormalisation norm;
  norm.dims = d;
  bool unitWeights = true;
  for (int64_t i = 0; i < states.rows; ++i) {
    const float w = weights.empty() ? 1.0f : weights[i];
    if (!std::isfinite(w) || w < 0)
      throw std::invalid_argument("row weight " + std::to_string(i) + " is negative or not finite");
    if (w > 0) {
      norm.rows.push_back(i);
      norm.weightSum += w;
      unitWeights = unitWeights && w == 1.0f;
    }
  }
  if (!(norm.weightSum > 1))
    throw std::invalid_argument("the covariance needs a total row weight above 1 (got " +
                                std::to_string(norm.weightSum) + ")");
  if (!unitWeights) {
    norm.rootWeights.reserve(norm.rows.size());
    for (int64_t row : norm.rows) norm.rootWeights.push_back(std::sqrt(weights[row]));
  }

  std::vector<double> sum = reduceRows(norm, weights, d, [&](int64_t row, double w, double* acc) {
    addWeightedRow(states.data + row * d, w, acc, d);
  });
  norm.mean.resize(d);
  for (int64_t j = 0; j < d; ++j) norm.mean[j] = sum[j] / norm.weightSum;
  for (double m : norm.mean)
    if (!std::isfinite(m))
      throw std::invalid_argument("the hidden states hold NaN or infinite values");

  // Column variances Σ_raw,jj = Σ w_i (x_ij − μ_j)² / (W − 1), in a second pass (no
  // cancellation when |μ| ≫ spread); tr(Σ_raw) is their sum.
  const double* mu = norm.mean.data();
  const std::vector<double> squares =
      reduceRows(norm, weights, d, [&](int64_t row, double w, double* acc) {
        addWeightedSquares(states.data + row * d, mu, w, acc, d);
      });
  double trace = 0;
  for (double s : squares) trace += s / (norm.weightSum - 1);
  if (!std::isfinite(trace))
    throw std::invalid_argument("the hidden states hold NaN or infinite values");
  if (!(trace > 0))
    throw std::invalid_argument(
        "the hidden states have zero variance (every row of positive weight is the same)");
  norm.scale.assign(d, 1.0);
  if (mode == Normalisation::Trace) {
    norm.scale.assign(d, std::sqrt(double(d) / trace));
  } else if (mode == Normalisation::Standardise) {
    for (int64_t j = 0; j < d; ++j) {
      const double variance = squares[j] / (norm.weightSum - 1);
      // A constant dimension has no unit to scale to: it stays 0 (and the caller warns).
      if (variance > 0) {
        norm.scale[j] = 1.0 / std::sqrt(variance);
      } else {
        norm.scale[j] = 0.0;
        ++norm.constantDimensions;
      }
    }
  }
  return norm;
}

void writeNormalisedRows(const HiddenStates& states, const RowNormalisation& norm,
                         const int64_t* rows, int64_t count, const float* factors, float* out,
                         bool parallel) {
  const int64_t d = norm.dims;
  const double* mu = norm.mean.data();
  const double* scale = norm.scale.data();
  const auto one = [&](int64_t r) {
    writeScaledRow(states.data + rows[r] * d, mu, scale, factors ? double(factors[r]) : 1.0,
                   out + r * d, d);
  };
  if (parallel && count * d >= (1 << 16)) {
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < count; ++r) one(r);
  } else {
    for (int64_t r = 0; r < count; ++r) one(r);
  }
}

void normalisedRows(const HiddenStates& states, const RowNormalisation& norm, float* out) {
  writeNormalisedRows(states, norm, norm.rows.data(), static_cast<int64_t>(norm.rows.size()),
                      nullptr, out, true);
}

int64_t rowBlockLength(int64_t dims, int64_t preferred) {
  const int64_t cap = std::max<int64_t>(256, (int64_t(64) << 20) / (4 * dims));
  return std::max<int64_t>(1, std::min(preferred, cap));
}

}  // namespace strata::geometry::cpu
