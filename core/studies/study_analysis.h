#pragma once
// A study's analysis: per arm and metric the mean ± sd and bootstrap interval over seeds, the
// curves averaged over seeds step by step, each claim's paired differences and verdict, and the
// headline verdict. Pure computation on measured numbers (tests feed it by hand). No torch here.

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "studies/study_protocol.h"

namespace strata::studies {

struct StudyRunResult {
  std::string arm;
  int64_t seed = 0;
  std::filesystem::path folder;
  RunMeasurement measurement;
};

struct CurveSummary {
  std::vector<int64_t> steps;
  std::vector<SeedSummary> points;  ///< one per step, over the seeds that logged it
};

struct ClaimResult {
  StudyClaim claim;  ///< with a selection, `arm` is the selected candidate
  /// With a selection: each candidate's mean selection metric over the seeds it was measured at.
  std::map<std::string, double> selection;
  SeedSummary difference;  ///< arm − baseline per seed (or arm − reference)
  StudyVerdict verdict;
};

struct StudyAnalysis {
  std::map<std::string, std::map<std::string, SeedSummary>> aggregates;  ///< arm → metric →
  std::map<std::string, std::map<std::string, CurveSummary>> curves;     ///< curve → arm →
  std::vector<ClaimResult> claims;
  std::map<std::string, double> acrossSeeds;  ///< Study::acrossSeeds' numbers, as given
  StudyVerdict
      verdict;  ///< the headline claim's; inconclusive while incomplete; "no claim" without claims
  int64_t runsMeasured = 0;  ///< (arm, seed) runs in the analysis
  int64_t runsPlanned = 0;   ///< arms × the seeds each arm trains at
  bool complete() const { return runsMeasured == runsPlanned; }
};

/** The value of `metric` for `arm` at each of the protocol's seeds (NaN where not measured). */
std::vector<double> seedValues(const StudyProtocol& protocol,
                               const std::vector<StudyRunResult>& runs, const std::string& arm,
                               const std::string& metric);

/** Throws ConfigError when a claim names an arm, metric, reference or headline the protocol
 *  lacks: a protocol is checked before anything trains. */
void checkProtocol(const StudyProtocol& protocol, const std::map<std::string, double>& facts);

StudyAnalysis analyseStudy(const StudyProtocol& protocol,
                           const std::map<std::string, double>& facts,
                           const std::vector<StudyRunResult>& runs,
                           const std::map<std::string, double>& acrossSeeds = {});

}  // namespace strata::studies
