#include "engine/decimated_series.h"

#include <stdexcept>
#include <string>

namespace strata::engine {

DecimatedSeries::DecimatedSeries(int64_t capacity) : m_capacity(capacity) {
  if (capacity < 2 || capacity % 2 != 0)
    throw std::invalid_argument("DecimatedSeries: capacity must be even and at least 2, not " +
                                std::to_string(capacity));
  m_buckets.reserve(static_cast<std::size_t>(capacity));
}

namespace {

void absorb(DecimatedSeries::Bucket& into, const DecimatedSeries::Bucket& from) {
  if (from.min < into.min) into.min = from.min, into.minStep = from.minStep;
  if (from.max > into.max) into.max = from.max, into.maxStep = from.maxStep;
  into.stepSum += from.stepSum;
  into.valueSum += from.valueSum;
  into.count += from.count;
}

}  // namespace

void DecimatedSeries::append(double step, double value) {
  ++m_points;
  const Bucket point{step, value, step, value, step, value, 1};
  if (!m_buckets.empty() && m_buckets.back().count < m_stride) {
    absorb(m_buckets.back(), point);
    return;
  }
  if (static_cast<int64_t>(m_buckets.size()) == m_capacity) mergePairs();
  m_buckets.push_back(point);
}

void DecimatedSeries::mergePairs() {
  // Every bucket is full here (the newest just filled), so each pair covers 2·stride points.
  const std::size_t half = m_buckets.size() / 2;
  for (std::size_t i = 0; i < half; ++i) {
    Bucket merged = m_buckets[2 * i];
    absorb(merged, m_buckets[2 * i + 1]);
    m_buckets[i] = merged;
  }
  m_buckets.resize(half);
  m_stride *= 2;
}

void DecimatedSeries::clear() {
  m_buckets.clear();
  m_stride = 1;
  m_points = 0;
}

void DecimatedSeries::envelope(std::vector<double>& steps, std::vector<double>& values) const {
  steps.clear();
  values.clear();
  steps.reserve(2 * m_buckets.size());
  values.reserve(2 * m_buckets.size());
  for (const Bucket& bucket : m_buckets) {
    const bool minFirst = bucket.minStep <= bucket.maxStep;
    steps.push_back(minFirst ? bucket.minStep : bucket.maxStep);
    values.push_back(minFirst ? bucket.min : bucket.max);
    if (bucket.minStep == bucket.maxStep) continue;
    steps.push_back(minFirst ? bucket.maxStep : bucket.minStep);
    values.push_back(minFirst ? bucket.max : bucket.min);
  }
}

void DecimatedSeries::means(std::vector<double>& steps, std::vector<double>& values) const {
  steps.clear();
  values.clear();
  steps.reserve(m_buckets.size());
  values.reserve(m_buckets.size());
  for (const Bucket& bucket : m_buckets) {
    steps.push_back(bucket.meanStep());
    values.push_back(bucket.mean());
  }
}

}  // namespace strata::engine
