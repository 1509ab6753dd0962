#include "geometry/score.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

namespace strata::geometry {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/** z-scores of `x` at the entries where `use` holds; 0 everywhere for a constant series. */
std::vector<double> zScores(std::vector<double> x, const std::vector<bool>& use) {
  // z is scale-invariant: divide by max|x| first, so that huge finite values (a plugin metric of
  // 1e300) cannot overflow the sums into ∞ and NaN.
  double largest = 0;
  for (size_t i = 0; i < x.size(); ++i)
    if (use[i]) largest = std::max(largest, std::abs(x[i]));
  if (largest > 0)
    for (double& v : x) v /= largest;
  double sum = 0;
  int64_t n = 0;
  for (size_t i = 0; i < x.size(); ++i)
    if (use[i]) sum += x[i], ++n;
  const double mean = n ? sum / double(n) : 0;
  double squares = 0;
  for (size_t i = 0; i < x.size(); ++i)
    if (use[i]) squares += (x[i] - mean) * (x[i] - mean);
  const double sd = n ? std::sqrt(squares / double(n)) : 0;
  std::vector<double> z(x.size(), 0.0);
  // Relative threshold: a proxy equal over the candidates up to rounding carries no ranking.
  // It is that of the unscaled series (sd·largest ≤ 1e-12·max(1, |mean|·largest)).
  const double unit = largest > 0 ? 1.0 / largest : 1.0;
  if (sd <= 1e-12 * std::max(unit, std::abs(mean))) return z;
  for (size_t i = 0; i < x.size(); ++i)
    if (use[i]) z[i] = (x[i] - mean) / sd;
  return z;
}

/** Whether series value `x` can enter S: finite, and positive when it is logged. */
bool usable(const MetricSeries& series, double x) {
  return std::isfinite(x) && (series.transform != ScoreTransform::Log || x > 0);
}

/** Names the series that leave entry i out of S (undefined, or not positive where logged). */
std::string exclusionReason(const std::vector<const MetricSeries*>& terms, size_t i) {
  std::string out;
  for (const MetricSeries* series : terms) {
    const double x = series->values[i];
    if (usable(*series, x)) continue;
    out += (out.empty() ? "" : ", ") + (series->builtIn ? "" : std::string("plugin metric ")) +
           series->info.name + (std::isfinite(x) ? " is not positive" : " is undefined");
  }
  return out;
}

}  // namespace

LayerRange defaultCandidates(int64_t numLayers) {
  if (numLayers < 2) return {0, numLayers};
  return {1, numLayers - 1};
}

double weightOf(const std::vector<MetricSeries>& series, const ScoreWeights& weights,
                size_t index) {
  return index < weights.size() ? weights[index] : series[index].defaultWeight();
}

LayerScores scoreLayers(const std::vector<int64_t>& layers, const std::vector<MetricSeries>& series,
                        const ScoreWeights& weights, const LayerRange& candidates) {
  const size_t n = layers.size();
  if (weights.size() > series.size())
    throw std::invalid_argument("scoreLayers: more weights than metric series");
  // The terms of S, which must be defined wherever S is computed: every proxy (whatever its
  // weight) and each weighted plugin metric.
  std::vector<const MetricSeries*> terms;
  std::vector<double> termWeights;
  for (size_t s = 0; s < series.size(); ++s) {
    if (series[s].values.size() != n)
      throw std::invalid_argument("scoreLayers: metric series " + series[s].info.name +
                                  " needs one value per layer");
    const double weight = weightOf(series, weights, s);
    if (!series[s].builtIn && weight == 0) continue;
    terms.push_back(&series[s]);
    termWeights.push_back(weight);
  }
  std::vector<bool> use(n);
  LayerScores out;
  for (size_t i = 0; i < n; ++i) {
    use[i] = candidates.contains(layers[i]);
    for (const MetricSeries* s : terms) use[i] = use[i] && usable(*s, s->values[i]);
    if (!use[i] && candidates.contains(layers[i]))
      out.warnings.push_back(
          {layers[i], "S", "left out of S and l*: " + exclusionReason(terms, i), true});
  }
  std::vector<std::vector<double>> z;
  for (const MetricSeries* s : terms) {
    std::vector<double> x(n, 0.0);
    for (size_t i = 0; i < n; ++i)
      if (use[i])
        x[i] = s->transform == ScoreTransform::Log ? std::log(s->values[i]) : s->values[i];
    z.push_back(zScores(x, use));
  }

  out.score.assign(n, kNaN);
  out.rank.assign(n, 0);
  std::vector<size_t> order;
  for (size_t i = 0; i < n; ++i) {
    if (!use[i]) continue;
    out.score[i] = 0;
    for (size_t t = 0; t < terms.size(); ++t)
      out.score[i] += (terms[t]->info.higherIsBetter ? 1.0 : -1.0) * termWeights[t] * z[t][i];
    order.push_back(i);
  }
  // Best first; equal scores keep the lower layer first, so l* is the shallowest maximum.
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return out.score[a] > out.score[b]; });
  for (size_t r = 0; r < order.size(); ++r) out.rank[order[r]] = int(r + 1);
  if (!order.empty()) out.bestIndex = int64_t(order.front());
  return out;
}

}  // namespace strata::geometry
