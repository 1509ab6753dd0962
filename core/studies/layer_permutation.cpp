// The layer-permutation test of the DiHAL studies (see layer_permutation.h).

#include "studies/layer_permutation.h"

#include <algorithm>
#include <cmath>

#include "geometry/rank_correlation.h"

namespace strata::studies {

namespace {

/** The column's index in `table`, or -1. */
int64_t columnOf(const StudyTable& table, const std::string& column) {
  const auto found = std::find(table.columns.begin(), table.columns.end(), column);
  return found == table.columns.end() ? -1 : int64_t(found - table.columns.begin());
}

/** Layer → its seed-mean val_loss_best for arms "<prefix><layer>" (finite values only). */
std::map<int64_t, double> seedMeanLosses(const std::vector<StudyRunResult>& runs,
                                         const std::string& prefix) {
  std::map<int64_t, std::pair<double, int64_t>> sums;
  for (const auto& r : runs) {
    if (r.arm.size() <= prefix.size() || r.arm.rfind(prefix, 0) != 0) continue;
    const std::string layer = r.arm.substr(prefix.size());
    if (!std::all_of(layer.begin(), layer.end(), ::isdigit)) continue;
    const auto loss = r.measurement.values.find("val_loss_best");
    if (loss == r.measurement.values.end() || !std::isfinite(loss->second)) continue;
    auto& [sum, n] = sums[std::stoll(layer)];
    sum += loss->second;
    ++n;
  }
  std::map<int64_t, double> means;
  for (const auto& [layer, sn] : sums) means[layer] = sn.first / double(sn.second);
  return means;
}

/** The bridged layers of `prefix` with a finite S in `tables`' layers_<n>: S, −seed-mean loss
 *  and depth, by layer. Empty when the table is missing or has no S. */
geometry::RankSeries seriesOf(const std::map<std::string, StudyTable>& tables,
                              const std::vector<StudyRunResult>& runs, const std::string& prefix,
                              const std::string& normalisation) {
  geometry::RankSeries out;
  const auto table = tables.find("layers_" + normalisation);
  if (table == tables.end()) return out;
  const int64_t layerColumn = columnOf(table->second, "layer");
  const int64_t scoreColumn = columnOf(table->second, "S");
  if (layerColumn < 0 || scoreColumn < 0) return out;
  std::map<int64_t, double> score;
  for (const auto& row : table->second.rows)
    if (std::isfinite(row[size_t(scoreColumn)]))
      score[int64_t(row[size_t(layerColumn)])] = row[size_t(scoreColumn)];
  for (const auto& [layer, loss] : seedMeanLosses(runs, prefix)) {
    const auto found = score.find(layer);
    if (found == score.end()) continue;
    out.x.push_back(found->second);
    out.y.push_back(-loss);
    out.z.push_back(double(layer));
  }
  return out;
}

/** "<tag>_<n>", or "<n>" for a study of one process: the end of every key of a series. */
std::string seriesKey(const std::string& tag, const std::string& normalisation) {
  return (tag.empty() ? "" : tag + "_") + normalisation;
}

/** " (<tag>, <n>)", or " (<n>)": the end of every label of a series. */
std::string seriesLabel(const std::string& tag, const std::string& normalisation) {
  return " (" + (tag.empty() ? "" : tag + ", ") + normalisation + ")";
}

}  // namespace

std::string permutationKey(const std::string& statistic, const std::string& tag,
                           const std::string& normalisation) {
  return "perm_" + statistic + "_" + seriesKey(tag, normalisation);
}

void reportPermutationBeside(StudyClaim& claim, const std::vector<BridgeSeries>& series) {
  for (const auto& s : series)
    for (const std::string n : {"trace", "none", "standardise"})
      for (const auto& [metric, statistic] :
           {std::pair<std::string, std::string>{"partial_rho", "p_partial_rho"},
            {"rho_s", "p_rho"}}) {
        const std::string tagged = metric + (s.tag.empty() ? "" : "_" + s.tag);
        if (claim.metric != tagged + "_" + n && !(n == "trace" && claim.metric == tagged)) continue;
        claim.permutationP = permutationKey(statistic, s.tag, n);
        claim.permutationDecides = false;
        return;
      }
}

std::vector<StudyMetric> layerPermutationMetrics(const std::vector<BridgeSeries>& series,
                                                 const std::vector<std::string>& normalisations) {
  std::vector<StudyMetric> metrics;
  for (const auto& s : series)
    for (const auto& n : normalisations) {
      const auto add = [&](const std::string& statistic, const std::string& label) {
        metrics.push_back(
            {permutationKey(statistic, s.tag, n), label + seriesLabel(s.tag, n), false});
      };
      add("rho", "ρ(S, −seed-mean loss) over the bridged layers");
      add("p_rho", "layer-permutation p of ρ, one-sided (ρ > 0)");
      add("p2_rho", "layer-permutation p of ρ, two-sided");
      add("partial_rho", "partial ρ(S, −seed-mean loss | depth) over the bridged layers");
      add("p_partial_rho", "layer-permutation p of the partial ρ, one-sided (> 0)");
      add("p2_partial_rho", "layer-permutation p of the partial ρ, two-sided");
    }
  return metrics;
}

std::map<std::string, double> layerPermutationTests(const std::map<std::string, StudyTable>& tables,
                                                    const std::vector<StudyRunResult>& runs,
                                                    const std::vector<BridgeSeries>& series,
                                                    const std::vector<std::string>& normalisations,
                                                    uint64_t seed, int64_t permutations) {
  std::map<std::string, double> out;
  for (const auto& n : normalisations)
    for (const auto& s : series) {
      const geometry::RankSeries r = seriesOf(tables, runs, s.armPrefix, n);
      if (r.x.size() < 3) continue;
      const geometry::RankPermutationTest t =
          geometry::rankPermutationTest(r.x, r.y, r.z, permutations, seed);
      out[permutationKey("rho", s.tag, n)] = t.rho;
      out[permutationKey("p_rho", s.tag, n)] = t.rhoGreater;
      out[permutationKey("p2_rho", s.tag, n)] = t.rhoTwoSided;
      out[permutationKey("partial_rho", s.tag, n)] = t.partialRho;
      out[permutationKey("p_partial_rho", s.tag, n)] = t.partialGreater;
      out[permutationKey("p2_partial_rho", s.tag, n)] = t.partialTwoSided;
    }
  return out;
}

std::vector<StudyMetric> pooledPermutationMetrics(const std::vector<BridgeSeries>& series,
                                                  const std::vector<std::string>& normalisations) {
  std::vector<StudyMetric> metrics;
  for (const auto& s : series)
    for (const auto& n : normalisations) {
      const std::string where = seriesLabel(s.tag, n);
      metrics.push_back({"pooled_partial_rho_" + seriesKey(s.tag, n),
                         "pooled partial ρ: the studies' seed-mean partial ρ weighted by their "
                         "layer counts" +
                             where,
                         false});
      metrics.push_back({"pooled_p_partial_rho_" + seriesKey(s.tag, n),
                         "its stratified layer-permutation p, one-sided" + where, false});
    }
  return metrics;
}

std::map<std::string, double> pooledLayerPermutationTests(
    const std::vector<PooledStudy>& studies, const std::vector<BridgeSeries>& series,
    const std::vector<std::string>& normalisations, uint64_t seed, int64_t permutations) {
  std::map<std::string, double> out;
  for (const auto& n : normalisations)
    for (const auto& s : series) {
      std::vector<geometry::RankSeries> strata;
      for (const auto& study : studies)
        strata.push_back(seriesOf(study.tables, study.runs, s.armPrefix, n));
      if (std::any_of(strata.begin(), strata.end(),
                      [](const geometry::RankSeries& r) { return r.x.size() < 3; }))
        continue;
      const geometry::PooledPermutationTest t =
          geometry::pooledPartialPermutationTest(strata, permutations, seed);
      out["pooled_partial_rho_" + seriesKey(s.tag, n)] = t.statistic;
      out["pooled_p_partial_rho_" + seriesKey(s.tag, n)] = t.greater;
    }
  return out;
}

}  // namespace strata::studies
