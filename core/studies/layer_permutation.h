#pragma once
// The layer-permutation test of the DiHAL studies: does S rank the bridged layers by their
// seed-mean loss better than chance over the layers? The seed bootstrap resamples seeds with the
// store fixed, so it cannot say whether an ordering of 13–17 layers is chance; this test exchanges
// the layers' seed-mean losses between the layers (S and depth stay) and asks how often ρ(S,
// −loss) and the partial ρ(S, −loss | depth) reach the observed values. Computed from study.json's
// per-layer tables and measured runs alone, so a recorded study can be re-analysed. No torch here.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "studies/study_analysis.h"
#include "studies/study_protocol.h"

namespace strata::studies {

/** One series of bridges: arms "<armPrefix><layer>" (e.g. "gaussian-l"), reported under `tag`
 *  ("gaussian"; empty when a study has one process). */
struct BridgeSeries {
  std::string tag;
  std::string armPrefix;
};

/** 100,000 reorderings: the Monte Carlo error of p near 0.05 is below 0.001. */
constexpr int64_t kLayerPermutations = 100000;

/** The key of a statistic: "perm_<statistic>[_<tag>]_<normalisation>", e.g.
 *  perm_p_partial_rho_gaussian_standardise. Statistics: rho, p_rho (one-sided, ρ > 0), p2_rho
 *  (two-sided), partial_rho, p_partial_rho, p2_partial_rho. */
std::string permutationKey(const std::string& statistic, const std::string& tag,
                           const std::string& normalisation);

/** Names the one-sided layer-permutation p of `claim`'s metric beside it, reported but not part
 *  of its rule (a protocol that ran before the test existed): partial_rho[_<tag>]_<n> and
 *  rho_s[_<tag>]_<n>; a metric without a normalisation suffix is the default scan's (trace).
 *  Other claims are left as they are. */
void reportPermutationBeside(StudyClaim& claim, const std::vector<BridgeSeries>& series);

/** The labels of every key layerPermutationTests gives for these series and normalisations. */
std::vector<StudyMetric> layerPermutationMetrics(const std::vector<BridgeSeries>& series,
                                                 const std::vector<std::string>& normalisations);

/** For each series and each normalisation whose table "layers_<n>" (columns "layer", "S") is in
 *  `tables`: the bridged layers with a finite S and a measured val_loss_best, each layer's
 *  loss averaged over its seeds, then geometry::rankPermutationTest(S, −loss, depth). Series
 *  with fewer than 3 such layers are left out. */
std::map<std::string, double> layerPermutationTests(const std::map<std::string, StudyTable>& tables,
                                                    const std::vector<StudyRunResult>& runs,
                                                    const std::vector<BridgeSeries>& series,
                                                    const std::vector<std::string>& normalisations,
                                                    uint64_t seed,
                                                    int64_t permutations = kLayerPermutations);

/** One study's bridged layers for a pooled test: its per-layer tables and measured runs. */
struct PooledStudy {
  std::map<std::string, StudyTable> tables;
  std::vector<StudyRunResult> runs;
};

/** The pooled keys: "pooled_partial_rho_<tag>_<n>" and "pooled_p_partial_rho_<tag>_<n>". */
std::vector<StudyMetric> pooledPermutationMetrics(const std::vector<BridgeSeries>& series,
                                                  const std::vector<std::string>& normalisations);

/** The pooled analysis of docs/studies/dihal-replication.md: per series and normalisation,
 *  each study's bridged layers (seed-mean losses, S, depth, as layerPermutationTests takes
 *  them) are one stratum of geometry::pooledPartialPermutationTest — T, the layer-count-weighted
 *  mean of the studies' partial ρ, and its one-sided stratified-permutation p. A series some
 *  study has fewer than 3 layers of is left out. */
std::map<std::string, double> pooledLayerPermutationTests(
    const std::vector<PooledStudy>& studies, const std::vector<BridgeSeries>& series,
    const std::vector<std::string>& normalisations, uint64_t seed,
    int64_t permutations = kLayerPermutations);

}  // namespace strata::studies
