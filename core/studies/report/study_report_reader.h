#pragma once
// Reads DIR/study.json (studies/study_report.h writes it) into values: the one reader of study
// reports, for the plots (app/study_plots), the workbench and the tests. Torch-free and
// Qt-free, and linked on its own (strata_study_report), so strata-study-plots stays small.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "studies/study_protocol.h"
#include "studies/study_statistics.h"

namespace strata::studies {

/** A claim as decided: what it compares and the paired difference its verdict rests on. */
struct StudyReportClaim {
  std::string id, statement, metric, arm;
  std::string permutationP;  ///< the across-seeds p the claim also needs; empty when none
  std::string baseline;      ///< the arm compared against; empty for a claim against a reference
  std::string reference;     ///< the fact compared against; empty for a claim against an arm
  SeedSummary difference;
  std::string verdict;  ///< "supported", "not supported" or "inconclusive"
  std::string reason;
};

/** One arm's curve: over steps (or over the curve's own x, "<y>_by_<x>"), mean and interval. */
struct StudyReportCurve {
  std::vector<double> x, mean, low, high;
};

/** One measured (arm, seed) run and its numbers. */
struct StudyReportRun {
  std::string arm;
  int64_t seed = 0;
  std::filesystem::path folder;
  std::map<std::string, double> metrics;  ///< NaN where study.json has null
  std::map<std::string, std::vector<std::pair<int64_t, double>>> curves;  ///< per-run series
  std::string commit;  ///< the commit of the build that finished the run; empty when unrecorded
};

struct StudyReport {
  std::filesystem::path file;
  std::string study, title, question;
  std::vector<StudyMetric> metrics;
  /// The protocol's arms, then the seed arm when the study has one: the order of every table.
  std::vector<std::string> arms;
  std::map<std::string, double> facts;  ///< NaN where study.json has null
  std::vector<StudyReportRun> runs;     ///< in the order they were measured
  /// aggregates[arm][metric]: the seeds' summary; absent where the arm has no such metric.
  std::map<std::string, std::map<std::string, SeedSummary>> aggregates;
  std::vector<StudyReportClaim> claims;
  /// curves[curve]: each arm's curve, in the protocol's arm order.
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, StudyReportCurve>>>> curves;
  std::map<std::string, StudyTable> tables;  ///< empty for reports written before tables
  /// Statistics over every seed at once (e.g. layer-permutation p), with their labels; empty
  /// for reports written before them. NaN where study.json has null.
  std::vector<StudyMetric> acrossSeedMetrics;
  std::map<std::string, double> acrossSeeds;
  std::string commit;  ///< the commit of the build that wrote it, when recorded
  bool complete = false;
  int64_t runsMeasured = 0, runsPlanned = 0;
  std::string verdict, verdictReason;

  /** The summary of `metric` for `arm`; nullopt when the report has none. */
  std::optional<SeedSummary> aggregate(const std::string& arm, const std::string& metric) const;
};

/** `studyFolder`/study.json. IoError naming it when it cannot be read, FormatError naming it
 *  (and the missing key) when it is not a study report. */
StudyReport readStudyReport(const std::filesystem::path& studyFolder);
/** The same for a study.json under any name (e.g. a record kept in docs/studies/). */
StudyReport readStudyReportFile(const std::filesystem::path& file);

}  // namespace strata::studies
