#pragma once
// A study's claims and the rule that decides them, fixed in the protocol before anything runs.
//
// A claim says that `metric` of `arm` is lower (or higher) than that of `baseline` — another
// arm, compared seed by seed (paired differences arm − baseline), or a fixed reference value
// computed before training (e.g. the corpus's unigram entropy; then the differences are the
// arm's values minus that value). With the 95 % bootstrap interval [low, high] of the mean
// difference and a margin m ≥ 0 (0 unless the protocol says "clearly"):
//   supported      — the interval lies beyond −m in the claim's direction (high < −m for
//                    "lower", low > m for "higher");
//   not supported  — the interval lies wholly on the other side of 0 (the data contradict it);
//   inconclusive   — anything else (the interval touches 0 or the margin), or fewer than 2
//                    paired seeds.
// A claim may first select its arm: of `candidates`, the one whose mean `selectionMetric` over
// the seeds is best (lowest when that metric is lower-is-better; ties: the first listed), e.g.
// the λ with the lowest validation CE; the rule above then tests that arm on `metric`, numbers
// the selection did not see (e.g. CE on held-out windows), so choosing the best of several arms
// does not by itself make the claim look supported.
// No torch here.

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "studies/study_statistics.h"

namespace strata::studies {

enum class ClaimDirection { Lower, Higher };

struct StudyClaim {
  std::string id;  ///< e.g. "dcdm_vs_bdlm"
  std::string
      statement;       ///< the claim in words, e.g. "dcdm K=8 has a lower val ELBO than bdlm B=8"
  std::string metric;  ///< a per-run metric key
  std::string arm;
  std::string baseline;   ///< another arm, or empty when comparing against `reference`
  std::string reference;  ///< a study fact's key (e.g. "unigram_entropy"), when baseline is empty
  /// When set, the baseline is this metric (of `baseline`, or of `arm` itself when baseline is
  /// empty), paired by seed: e.g. ρ(S) against ρ(−depth) of the same sweep.
  std::string baselineMetric;
  ClaimDirection direction = ClaimDirection::Lower;
  double margin = 0;  ///< how far past 0 the interval must lie to count as support
  /// When not empty: `arm` is chosen among these by `selectionMetric` (see the top of the file).
  std::vector<std::string> candidates;
  std::string selectionMetric;
  /// When set, support needs more than the interval: the study's across-seeds value of this key
  /// (e.g. a one-sided layer-permutation p, Study::acrossSeeds) must lie below
  /// `permutationAlpha`. An interval that supports the claim with p at or above it, or no such
  /// value, gives "inconclusive".
  std::string permutationP;
  double permutationAlpha = 0.05;
  /// false: the p is reported beside the interval (an exploratory addition to a protocol that
  /// ran without it) and the verdict is the interval's alone.
  bool permutationDecides = true;
  StudyClaim() = default;
  StudyClaim(std::string id, std::string statement, std::string metric, std::string arm,
             std::string baseline, std::string reference, ClaimDirection direction, double margin,
             std::string baselineMetric = {})
      : id(std::move(id)),
        statement(std::move(statement)),
        metric(std::move(metric)),
        arm(std::move(arm)),
        baseline(std::move(baseline)),
        reference(std::move(reference)),
        baselineMetric(std::move(baselineMetric)),
        direction(direction),
        margin(margin) {}
};

struct StudyVerdict {
  std::string result;  ///< "supported", "not supported", "inconclusive"; "no claim": a comparison
  std::string reason;
};

/** The decision rule above, in words, for the protocol and the docs. */
std::string decisionRuleText();

/** The rule applied to the claim's differences (summarised over seeds); `permutationP` is the
 *  value of claim.permutationP (NaN when the study has none), read only when that is set. */
StudyVerdict decideClaim(const StudyClaim& claim, const SeedSummary& difference,
                         double permutationP = std::numeric_limits<double>::quiet_NaN());

}  // namespace strata::studies
