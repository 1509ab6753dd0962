// The decision rule of a study's claims (see study_verdict.h).

#include "studies/study_verdict.h"

#include <cmath>

#include "common/human_format.h"

namespace strata::studies {

std::string decisionRuleText() {
  return "For each claim (metric of arm lower/higher than a baseline arm, paired by seed, or than "
         "a "
         "reference value): take the 95 % percentile-bootstrap interval [low, high] of the mean "
         "difference arm − baseline over seeds. Supported if the interval lies beyond the margin "
         "in "
         "the claim's direction (high < −margin for 'lower', low > margin for 'higher'); not "
         "supported if it lies wholly on the other side of 0; inconclusive otherwise or with "
         "fewer than 2 paired seeds. A claim that names a permutation p is supported only if, in "
         "addition, that p lies below its alpha (0.05 unless stated); otherwise inconclusive.";
}

StudyVerdict decideClaim(const StudyClaim& claim, const SeedSummary& d, double permutationP) {
  const std::string against =
      !claim.baselineMetric.empty()
          ? (claim.baseline.empty() ? claim.arm : claim.baseline) + "'s " + claim.baselineMetric
          : (claim.baseline.empty() ? claim.reference : claim.baseline);
  const std::string interval = "mean difference " + formatFixed(d.mean, 4) + ", 95 % interval [" +
                               formatFixed(d.low, 4) + ", " + formatFixed(d.high, 4) + "] over " +
                               std::to_string(d.n) + " seeds";
  if (d.n < 2 || !std::isfinite(d.low) || !std::isfinite(d.high))
    return {"inconclusive", "only " + std::to_string(d.n) + " paired seed(s) of " + claim.metric +
                                " for " + claim.arm + " against " + against + ": no interval"};
  const bool lower = claim.direction == ClaimDirection::Lower;
  // Signed so that "the claim's direction" is always negative.
  const double nearEdge = lower ? d.high : -d.low;
  const double farEdge = lower ? d.low : -d.high;
  const std::string way = lower ? "below" : "above";
  const std::string margin =
      claim.margin > 0 ? " by more than the margin " + formatFixed(claim.margin, 4) : "";
  if (nearEdge < -claim.margin) {
    const std::string supported = interval + ": " + claim.arm + "'s " + claim.metric + " lies " +
                                  way + " " + against + margin;
    if (claim.permutationP.empty() || !claim.permutationDecides) return {"supported", supported};
    const std::string alpha = formatFixed(claim.permutationAlpha, 2);
    if (!std::isfinite(permutationP))
      return {"inconclusive", supported + ", but " + claim.permutationP +
                                  " (the permutation test the claim also needs) was not computed"};
    const std::string p = claim.permutationP + " = " + formatFixed(permutationP, 4);
    if (permutationP < claim.permutationAlpha)
      return {"supported", supported + ", and " + p + " < " + alpha};
    return {"inconclusive", supported + ", but " + p + " is not below " + alpha +
                                ": across the units permuted the ordering may be chance"};
  }
  if (farEdge > 0)
    return {"not supported", interval + ": " + claim.arm + "'s " + claim.metric + " lies " +
                                 (lower ? "above " : "below ") + against + ", against the claim"};
  return {"inconclusive",
          interval + ": the interval reaches " +
              (claim.margin > 0 ? "the margin " + formatFixed(claim.margin, 4) : std::string("0"))};
}

}  // namespace strata::studies
