#pragma once
// compare-dlm and compare-align, run as studies: the comparison's variants are the study's
// arms, trained with the shared settings and one budget at the settings' seed (and the next
// ones with seeds > 1), each an ordinary resumable run in DIR/runs/<variant>-s<seed>, measured
// once, analysed into DIR/study.json and DIR/study.md by the study runner like every study —
// and then tabulated from study.json into DIR/compare.{md,csv,json}. A comparison has no
// claims: it reports its arms side by side and decides nothing (verdict "no claim"); the
// studies that decide are `strata-cli study dcdm` and `study repr-align`. No torch here.

#include <vector>

#include "recipes/dcdm/dlm_comparison.h"
#include "recipes/repr_align/align_comparison.h"

namespace strata {

class JobContext;

}  // namespace strata

namespace strata::studies {

/** Trains (or continues) every variant, then writes the study's files and compare.*. */
std::vector<recipes::DlmComparisonRow> runDlmComparison(const recipes::DlmComparisonConfig& config,
                                                        JobContext& job);
std::vector<recipes::AlignComparisonRow> runAlignComparison(
    const recipes::AlignComparisonConfig& config, JobContext& job);

}  // namespace strata::studies
