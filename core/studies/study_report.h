#pragma once
// A study's files: DIR/protocol.json (the protocol as first run, so a rerun with other settings
// is refused rather than mixed), DIR/study.json (protocol, machine and date, every per-run
// number, the aggregates with their intervals, the claims and the verdict), and each run's
// cached measurement (DIR/runs/<run>/study_measures.json). No torch here.
//
// study.json:
//   {"study", "title", "question",
//    "protocol": {"budget", "budget_note", "seeds", "arms": [{"name", "recipe", "settings",
//                 "seed_limit" (only when the arm trains at the first seeds only),
//                 "description"}], "auxiliary": [...], "shared_settings", "overrides",
//                 "metrics": [{"key", "label", "lower_is_better"}], "curves", "claims": [{"id",
//                 "statement", "metric", "arm", "baseline" | "reference", "direction", "margin"}],
//                 "headline", "decision_rule", "statistics": {...}},
//    "code_version", "build",
//    "code": {"version", "build_type", "compiler", "cuda", "executable", "executable_time",
//             "source_tree", "commit", "commit_time", "changes": [git status lines]},
//    "machine": {"host", "cpus", "device", "libtorch"}, "date",
//    "facts": {key: value},
//    "runs": [{"arm", "seed", "folder", "metrics": {key: value},
//              "curves": {curve: [[step, value], ...]}}],
//    "aggregates": {arm: {metric: {"n", "mean", "sd", "low", "high", "values"}}},
//    "curves": {curve: {arm: {"step": [...], "mean": [...], "low": [...], "high": [...],
//                             "seeds": {seed: [value per step, null where not logged]}}}},
//    "tables": {name: {"description", "columns": [...], "rows": [[...], ...]}},
//    "claims": [{"id", "statement", ..., "difference": {...}, "verdict": {"result", "reason"}}],
//    "complete", "runs_measured", "runs_planned",   (false / fewer: a partial analysis)
//    "verdict": {"result", "reason"}}
// Non-finite numbers are written as null.

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "studies/study_analysis.h"
#include "studies/study_provenance.h"

namespace strata::studies {

/** The protocol as JSON text (what DIR/protocol.json holds; the device is not part of it). */
std::string protocolJson(const StudyProtocol& protocol, const std::vector<std::string>& overrides);

struct StudyRecord {
  CodeProvenance code;
  std::map<std::string, double> facts;
  std::vector<StudyRunResult> runs;
  std::map<std::string, StudyTable> tables;
  /// A re-analysis (studies/study_runner.h, reanalyseStudy): the record it was redone from and
  /// the commit that record names; empty for a study analysed from its own runs.
  std::filesystem::path reanalysedFrom;
  std::string reanalysedCommit;
};

void writeStudyJson(const std::filesystem::path& file, const StudyProtocol& protocol,
                    const StudyOptions& options, const StudyRecord& record,
                    const StudyAnalysis& analysis);

void writeRunMeasurement(const std::filesystem::path& file, const RunMeasurement& measurement);
/** nullopt when the file does not exist; FormatError naming it when it is not readable. */
std::optional<RunMeasurement> readRunMeasurement(const std::filesystem::path& file);

}  // namespace strata::studies
