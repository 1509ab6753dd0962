// Statistics over seeds (see study_statistics.h).

#include "studies/study_statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <utility>

#include "common/error.h"

namespace strata::studies {

namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

std::vector<double> finiteOnly(const std::vector<double>& values) {
  std::vector<double> kept;
  for (double v : values)
    if (std::isfinite(v)) kept.push_back(v);
  return kept;
}

}  // namespace

double meanOf(const std::vector<double>& values) {
  if (values.empty()) return kNan;
  double sum = 0;
  for (double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

double sampleSd(const std::vector<double>& values) {
  if (values.size() < 2) return kNan;
  const double mean = meanOf(values);
  double squares = 0;
  for (double v : values) squares += (v - mean) * (v - mean);
  return std::sqrt(squares / static_cast<double>(values.size() - 1));
}

double linearQuantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return kNan;
  const double position = std::clamp(q, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<size_t>(std::floor(position));
  const size_t above = std::min(below + 1, sorted.size() - 1);
  const double weight = position - static_cast<double>(below);
  return sorted[below] + weight * (sorted[above] - sorted[below]);
}

std::pair<double, double> bootstrapMeanInterval(const std::vector<double>& values,
                                                const BootstrapSettings& settings) {
  if (values.empty()) return {kNan, kNan};
  if (settings.resamples < 1) throw Error("bootstrap: resamples must be at least 1");
  const uint64_t n = values.size();
  std::mt19937_64 draw(settings.seed);
  std::vector<double> means;
  means.reserve(static_cast<size_t>(settings.resamples));
  for (int64_t b = 0; b < settings.resamples; ++b) {
    double sum = 0;
    for (uint64_t i = 0; i < n; ++i) sum += values[static_cast<size_t>(draw() % n)];
    means.push_back(sum / static_cast<double>(n));
  }
  std::sort(means.begin(), means.end());
  const double tail = (1.0 - settings.level) / 2.0;
  return {linearQuantile(means, tail), linearQuantile(means, 1.0 - tail)};
}

SeedSummary summarise(const std::vector<double>& values, const BootstrapSettings& settings) {
  SeedSummary s;
  s.values = finiteOnly(values);
  s.n = static_cast<int64_t>(s.values.size());
  s.mean = meanOf(s.values);
  s.sd = sampleSd(s.values);
  std::tie(s.low, s.high) = bootstrapMeanInterval(s.values, settings);
  return s;
}

std::vector<double> pairedDifferences(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size())
    throw Error("paired differences: " + std::to_string(a.size()) + " values against " +
                std::to_string(b.size()) + " (the arms must have the same seeds)");
  std::vector<double> d;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::isfinite(a[i]) && std::isfinite(b[i])) d.push_back(a[i] - b[i]);
  return d;
}

}  // namespace strata::studies
