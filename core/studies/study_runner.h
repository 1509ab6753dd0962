#pragma once
// Runs a study end to end: checks the protocol, trains the auxiliary runs and then every
// (arm, seed) as an ordinary resumable run folder DIR/runs/<arm>-s<seed> (studies/study_runs.h:
// a finished run is kept, an interrupted one resumed), measures each finished run once (cached
// beside it), and redoes the analysis into DIR/study.json and DIR/study.md. One progress bar
// covers the whole study (studies/study_progress.h); cancellation stops at the next step and
// leaves every folder resumable. No torch here.

#include <filesystem>
#include <string>

#include "studies/study_analysis.h"

namespace strata {

class JobContext;

}  // namespace strata

namespace strata::studies {

struct StudyReport;  // studies/report/study_report_reader.h

struct StudyOutcome {
  std::filesystem::path studyJson;
  StudyAnalysis analysis;
};

/** The settings of one run: device, then `base`, then the overrides the recipe knows. */
std::vector<std::string> studyRunSettings(const std::string& recipe,
                                          const std::vector<std::string>& base,
                                          const StudyOptions& options);

StudyOutcome runStudy(Study& study, const StudyOptions& options, JobContext& job);

/** A recorded study's measured runs (with the commit each names) as the analysis takes them. */
std::vector<StudyRunResult> recordedRuns(const StudyReport& report);

/** Redoes the analysis of a recorded study (a study.json, e.g. docs/studies/<name>.json) with
 *  this build's protocol, claims and statistics across seeds: nothing trains and no run folder
 *  is read. The record's runs, facts and tables are kept as they are; options.folder receives
 *  study.json (naming the record) and study.md. ConfigError when the record is another study's
 *  or names an arm the protocol lacks. */
StudyOutcome reanalyseStudy(Study& study, const StudyOptions& options,
                            const std::filesystem::path& record);

}  // namespace strata::studies
