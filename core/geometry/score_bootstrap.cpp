#include "geometry/score_bootstrap.h"

#include <algorithm>
#include <stdexcept>

#include "geometry/bootstrap_interval.h"

namespace strata::geometry {

ScoreBootstrap bootstrapScores(const std::vector<int64_t>& layers,
                               const std::vector<ProxyValues>& values,
                               const std::vector<std::vector<ProxyValues>>& replicates,
                               const ScoreWeights& weights, const LayerRange& candidates,
                               double confidence, const std::vector<MetricTerm>& pluginTerms) {
  if (replicates.size() != layers.size() || values.size() != layers.size())
    throw std::invalid_argument("bootstrapScores: one value and replicate list per layer is needed");
  const size_t n = layers.size();
  ScoreBootstrap out;
  out.score.assign(n, {kUndefined, kUndefined});
  out.bestFrequency.assign(n, kUndefined);
  out.excludesPoint.assign(n, false);
  // A layer without replicates (undefined: no proxy was computed) is undefined on every
  // resample; the others must agree on the count.
  size_t resamples = 0;
  for (const auto& r : replicates) resamples = std::max(resamples, r.size());
  if (resamples == 0) return out;
  for (const auto& r : replicates)
    if (!r.empty() && r.size() != resamples)
      throw std::invalid_argument("bootstrapScores: the layers hold different numbers of resamples");
  out.resamples = int64_t(resamples);
  std::vector<std::vector<double>> scores(n);
  std::vector<int64_t> best(n, 0);
  for (size_t r = 0; r < resamples; ++r) {
    std::vector<ProxyValues> values;
    for (size_t i = 0; i < n; ++i)
      values.push_back(replicates[i].empty() ? ProxyValues{kUndefined, kUndefined, kUndefined}
                                             : replicates[i][r]);
    const LayerScores s = scoreLayers(layers, values, weights, candidates, pluginTerms);
    for (size_t i = 0; i < n; ++i) scores[i].push_back(s.score[i]);
    if (s.bestIndex >= 0) ++best[size_t(s.bestIndex)];
  }
  const LayerScores point = scoreLayers(layers, values, weights, candidates, pluginTerms);
  for (size_t i = 0; i < n; ++i) {
    if (!candidates.contains(layers[i])) continue;
    out.score[i] = percentileInterval(scores[i], confidence);
    // A layer that no resample could score (undefined proxies) has no frequency, not 0.
    const bool scoredOnce =
        std::any_of(scores[i].begin(), scores[i].end(), [](double v) { return isDefined(v); });
    if (scoredOnce) out.bestFrequency[i] = double(best[i]) / double(resamples);
    const double s = point.score[i];
    out.excludesPoint[i] = isDefined(s) && isDefined(out.score[i].low) &&
                           isDefined(out.score[i].high) &&
                           (s < out.score[i].low || s > out.score[i].high);
  }
  return out;
}

}  // namespace strata::geometry
