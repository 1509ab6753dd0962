#pragma once
// compare-dlm, compare-align and sweep-bridges, run as studies: the comparison's variants are
// the study's
// arms, trained with the shared settings and one budget at the settings' seed (and the next
// ones with seeds > 1), each an ordinary resumable run in DIR/runs/<variant>-s<seed>, measured
// once, analysed into DIR/study.json and DIR/study.md by the study runner like every study —
// and then tabulated from study.json into DIR/compare.{md,csv,json}. A comparison has no
// claims: it reports its arms side by side and decides nothing (verdict "no claim"); the
// studies that decide are `strata-cli study dcdm` and `study repr-align`. A bridge sweep's
// arms are its layers (layer-<l>, and the layer-0 baseline), trained after its store is
// captured and scored, then scored by that store into DIR/sweep.{json,csv,md}. No torch here.

#include <vector>

#include "recipes/bridge/bridge_sweep.h"
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
/** Trains (or continues) the bridge at every layer, then writes the study's files and sweep.*.
 *  A sweep folder of the layout before sweeps were studies (DIR/layer-<l>) continues: its runs
 *  move to DIR/runs/layer-<l>-s<seed>. */
recipes::BridgeSweepResult runBridgeSweep(const recipes::BridgeSweepConfig& config,
                                          JobContext& job);

}  // namespace strata::studies
