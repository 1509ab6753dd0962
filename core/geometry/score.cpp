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

bool usable(const ProxyValues& v) {
  auto positive = [](double x) { return std::isfinite(x) && x > 0; };
  return positive(v.curvature) && positive(v.monotonicity) && positive(v.effectiveRank);
}

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

/** Names the undefined (or non-positive) proxies and weighted plugin metrics of entry i. */
std::string exclusionReason(const ProxyValues& v, const std::vector<const MetricTerm*>& terms,
                            size_t i) {
  std::string out;
  const auto add = [&](const std::string& name, double x, bool logged) {
    if (std::isfinite(x) && (!logged || x > 0)) return;
    out += (out.empty() ? "" : ", ") + name +
           (std::isfinite(x) ? " is not positive" : " is undefined");
  };
  add("m_curv", v.curvature, true);
  add("m_mono", v.monotonicity, true);
  add("k_eff", v.effectiveRank, true);
  for (size_t t = 0; t < terms.size(); ++t)
    add("plugin metric " + (terms[t]->name.empty() ? std::to_string(t + 1) : terms[t]->name),
        terms[t]->values[i], false);
  return out;
}

}  // namespace

LayerRange defaultCandidates(int64_t numLayers) {
  if (numLayers < 2) return {0, numLayers};
  return {1, numLayers - 1};
}

LayerScores scoreLayers(const std::vector<int64_t>& layers, const std::vector<ProxyValues>& values,
                        const ScoreWeights& weights, const LayerRange& candidates,
                        const std::vector<MetricTerm>& pluginTerms) {
  if (layers.size() != values.size())
    throw std::invalid_argument("scoreLayers: one proxy triple per layer is needed");
  const size_t n = layers.size();
  std::vector<const MetricTerm*> terms;
  for (const MetricTerm& term : pluginTerms) {
    if (term.values.size() != n)
      throw std::invalid_argument("scoreLayers: a plugin metric needs one value per layer");
    if (term.weight != 0) terms.push_back(&term);
  }
  std::vector<bool> use(n);
  std::vector<double> logCurv(n, 0), logMono(n, 0), logRank(n, 0);
  LayerScores out;
  for (size_t i = 0; i < n; ++i) {
    use[i] = candidates.contains(layers[i]) && usable(values[i]);
    for (const MetricTerm* term : terms) use[i] = use[i] && std::isfinite(term->values[i]);
    if (!use[i]) {
      if (candidates.contains(layers[i])) {
        const std::string why = exclusionReason(values[i], terms, i);
        out.warnings.push_back({layers[i], "S", "left out of S and l*: " + why, true});
      }
      continue;
    }
    logCurv[i] = std::log(values[i].curvature);
    logMono[i] = std::log(values[i].monotonicity);
    logRank[i] = std::log(values[i].effectiveRank);
  }
  const auto zc = zScores(logCurv, use), zm = zScores(logMono, use), zk = zScores(logRank, use);
  std::vector<std::vector<double>> zp;
  for (const MetricTerm* term : terms) {
    std::vector<double> x(n, 0.0);
    for (size_t i = 0; i < n; ++i)
      if (use[i]) x[i] = term->values[i];
    zp.push_back(zScores(x, use));
  }

  out.score.assign(n, kNaN);
  out.rank.assign(n, 0);
  std::vector<size_t> order;
  for (size_t i = 0; i < n; ++i) {
    if (!use[i]) continue;
    out.score[i] = weights.curvature * zc[i] + weights.monotonicity * zm[i] -
                   weights.effectiveRank * zk[i];
    for (size_t t = 0; t < terms.size(); ++t)
      out.score[i] += (terms[t]->higherIsBetter ? 1.0 : -1.0) * terms[t]->weight * zp[t][i];
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
