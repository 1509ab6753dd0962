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

}  // namespace

std::string permutationKey(const std::string& statistic, const std::string& tag,
                           const std::string& normalisation) {
  return "perm_" + statistic + (tag.empty() ? "" : "_" + tag) + "_" + normalisation;
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
      const std::string where = (s.tag.empty() ? "" : s.tag + ", ") + n;
      const auto add = [&](const std::string& statistic, const std::string& label) {
        metrics.push_back({permutationKey(statistic, s.tag, n), label + " (" + where + ")", false});
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
  for (const auto& n : normalisations) {
    const auto table = tables.find("layers_" + n);
    if (table == tables.end()) continue;
    const int64_t layerColumn = columnOf(table->second, "layer");
    const int64_t scoreColumn = columnOf(table->second, "S");
    if (layerColumn < 0 || scoreColumn < 0) continue;
    std::map<int64_t, double> score;
    for (const auto& row : table->second.rows)
      if (std::isfinite(row[size_t(scoreColumn)]))
        score[int64_t(row[size_t(layerColumn)])] = row[size_t(scoreColumn)];
    for (const auto& s : series) {
      std::vector<double> x, y, depth;
      for (const auto& [layer, loss] : seedMeanLosses(runs, s.armPrefix)) {
        const auto found = score.find(layer);
        if (found == score.end()) continue;
        x.push_back(found->second);
        y.push_back(-loss);
        depth.push_back(double(layer));
      }
      if (x.size() < 3) continue;
      const geometry::RankPermutationTest t =
          geometry::rankPermutationTest(x, y, depth, permutations, seed);
      out[permutationKey("rho", s.tag, n)] = t.rho;
      out[permutationKey("p_rho", s.tag, n)] = t.rhoGreater;
      out[permutationKey("p2_rho", s.tag, n)] = t.rhoTwoSided;
      out[permutationKey("partial_rho", s.tag, n)] = t.partialRho;
      out[permutationKey("p_partial_rho", s.tag, n)] = t.partialGreater;
      out[permutationKey("p2_partial_rho", s.tag, n)] = t.partialTwoSided;
    }
  }
  return out;
}

}  // namespace strata::studies
