#include "geometry/score_bootstrap.h"

#include <algorithm>
#include <stdexcept>

#include "geometry/bootstrap_interval.h"

namespace strata::geometry {

ScoreBootstrap bootstrapScores(const std::vector<int64_t>& layers,
                               const std::vector<MetricSeries>& series, const ScoreWeights& weights,
                               const LayerRange& candidates, double confidence) {
  const size_t n = layers.size();
  // The resample count: every layer with replicates, in every bootstrapped series, must agree.
  size_t resamples = 0;
  for (const MetricSeries& s : series) {
    if (s.values.size() != n || (!s.replicates.empty() && s.replicates.size() != n))
      throw std::invalid_argument("bootstrapScores: metric series " + s.info.name +
                                  " needs one value and replicate list per layer");
    for (const auto& r : s.replicates) resamples = std::max(resamples, r.size());
  }
  ScoreBootstrap out;
  out.score.assign(n, {kUndefined, kUndefined});
  out.bestFrequency.assign(n, kUndefined);
  out.excludesPoint.assign(n, false);
  if (resamples == 0) return out;
  for (const MetricSeries& s : series)
    for (const auto& r : s.replicates)
      if (!r.empty() && r.size() != resamples)
        throw std::invalid_argument(
            "bootstrapScores: the layers hold different numbers of resamples");
  out.resamples = int64_t(resamples);
  std::vector<std::vector<double>> scores(n);
  std::vector<int64_t> best(n, 0);
  std::vector<MetricSeries> resampled = series;
  for (size_t r = 0; r < resamples; ++r) {
    for (size_t s = 0; s < series.size(); ++s) {
      const auto& replicates = series[s].replicates;
      if (replicates.empty()) continue;  // not bootstrapped: its point values
      for (size_t i = 0; i < n; ++i)
        resampled[s].values[i] = replicates[i].empty() ? kUndefined : replicates[i][r];
    }
    const LayerScores scored = scoreLayers(layers, resampled, weights, candidates);
    for (size_t i = 0; i < n; ++i) scores[i].push_back(scored.score[i]);
    if (scored.bestIndex >= 0) ++best[size_t(scored.bestIndex)];
  }
  const LayerScores point = scoreLayers(layers, series, weights, candidates);
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
