#pragma once
// DIR/study.md: what study.json says, for people — per metric a table of the arms' mean ± sd
// and 95 % interval over seeds, then every claim with its paired difference and verdict, and
// the headline verdict. Written beside study.json on every analysis. No torch here.

#include <filesystem>
#include <map>
#include <string>

#include "studies/study_analysis.h"

namespace strata::studies {

std::string studySummaryMarkdown(const StudyProtocol& protocol,
                                 const std::map<std::string, double>& facts,
                                 const StudyAnalysis& analysis);

}  // namespace strata::studies
