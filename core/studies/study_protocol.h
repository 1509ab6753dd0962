#pragma once
// What a study is: a protocol — arms × seeds, each arm a recipe with its settings on top of the
// shared ones, one budget for all, the metrics to report and the claims with the rule that will
// decide them — written down (DIR/protocol.json, study.json) before anything trains, plus the
// study's own measuring of a finished run. The runner (study_runner.h) does the rest the same
// way for every study. No torch here.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "studies/study_provenance.h"
#include "studies/study_statistics.h"
#include "studies/study_verdict.h"

namespace strata {

class JobContext;

}  // namespace strata

namespace strata::studies {

struct StudyRunResult;  // studies/study_analysis.h

/** One arm (trained once per seed) or one auxiliary run (trained once, e.g. a judge). */
struct StudyArm {
  std::string name;                   ///< run folder DIR/runs/<name>-s<seed> (auxiliary: <name>)
  std::string recipe;                 ///< a recipe of recipes/registry.h
  std::vector<std::string> settings;  ///< "key=value", applied after the shared settings
  std::string description;
  /// Trained at the first `seedLimit` of the protocol's seeds only (0: at every seed): a study
  /// gives its headline arms more seeds than the others. Claims pair the seeds both arms have.
  int64_t seedLimit = 0;
  /** Whether this arm trains at the protocol's `index`-th seed (0-based). */
  bool runsAtSeed(size_t index) const { return seedLimit <= 0 || int64_t(index) < seedLimit; }
};

struct StudyMetric {
  std::string key;    ///< the per-run number's key in study.json
  std::string label;  ///< for tables and plot axes, e.g. "best val ELBO (nats/token)"
  bool lowerIsBetter = true;
};

struct StudyProtocol {
  std::string name;  ///< `strata-cli study <name>`
  std::string title;
  std::string question;    ///< what the study asks, one sentence
  std::string budget;      ///< "full" or "smoke"
  std::string budgetNote;  ///< what the budget is and how it was sized
  std::vector<int64_t> seeds;
  std::vector<StudyArm> auxiliary;  ///< trained first, once, with their own settings only
  std::vector<StudyArm> arms;
  std::vector<std::string> shared;  ///< settings every arm gets before its own
  std::vector<StudyMetric> metrics;
  std::vector<std::string> curves;  ///< per-run series over steps (e.g. "val_loss")
  std::vector<StudyClaim> claims;
  std::string headline;  ///< the claim whose verdict is the study's `verdict`
  /// When not empty: the name under which Study::seedMeasurement's numbers (statistics across
  /// the arms of one seed, e.g. a rank correlation over layers) are reported, as if an arm.
  std::string seedArm;
  /// The numbers Study::acrossSeeds reports (statistics over every seed at once, e.g. a
  /// layer-permutation test on the seed means), with their labels, for study.json and study.md.
  std::vector<StudyMetric> acrossSeedMetrics;
  /// How finished runs are measured, where it is not a run's setting ("key=value": a judge
  /// model, prompts, tokens, sampling), fixed with the protocol; empty for most studies.
  std::vector<std::string> measuring;
  BootstrapSettings bootstrap;
};

/** What `strata-cli study` was asked. */
struct StudyOptions {
  std::filesystem::path folder;
  int64_t seeds = 3;
  std::string budget = "full";
  std::string device = "auto";         ///< every run's "device" (not part of the protocol)
  std::vector<std::string> overrides;  ///< --set key=value: every run whose recipe has the key
  int64_t measureSamples = -1;         ///< study-specific default when negative
  /// Train nothing: analyse the runs finished so far (a study still running elsewhere, or
  /// stopped). study.json then says complete: false and its verdict is inconclusive.
  bool analyseOnly = false;
  /// Another study's record (a study.json) whose layers a study's statistics across seeds pool
  /// with its own (the DiHAL replication's pooled analysis); empty: none. Adds the pooled
  /// statistics to the protocol's across-seeds metrics.
  std::filesystem::path poolWith;
  /// The model that judges generated text (Gen.PPL) for studies that use a pretrained judge
  /// (dihal-generation); empty: the study's default.
  std::filesystem::path judge;
};

/** A finished run's numbers and series. */
struct RunMeasurement {
  std::map<std::string, double> values;
  std::map<std::string, std::vector<std::pair<int64_t, double>>> curves;
  /// The build that finished and measured the run (a study resumed by another build keeps each
  /// run's own); nullopt for measurements recorded before builds were.
  std::optional<CodeProvenance> code;
};

/** Numbers a study's claims rest on besides the runs' (e.g. DiHAL's per-layer proxies and
 *  score with their intervals), written into study.json under "tables" so that every sentence
 *  of the study's page can be recomputed from the file. A column "<c>_low"/"<c>_high" beside
 *  "<c>" is its interval. */
struct StudyTable {
  std::string description;
  std::vector<std::string> columns;
  std::vector<std::vector<double>> rows;  ///< one value per column (NaN: undefined)
};

/** One study: its protocol and how it measures a run. Used from the one job thread. */
class Study {
 public:
  virtual ~Study() = default;
  virtual StudyProtocol protocol(const StudyOptions& options) const = 0;
  /** Reference values fixed before training (e.g. a corpus's unigram entropy): "facts". */
  virtual std::map<std::string, double> facts(const StudyProtocol&) const { return {}; }
  /** After the auxiliary runs are trained, before any arm trains (e.g. capture and score an
   *  activation store the arms read); called on every run of the study, so it must skip work
   *  already done. */
  virtual void afterAuxiliary(const StudyProtocol&, const std::filesystem::path& /*runs*/,
                              const StudyOptions&, JobContext&) {}
  /** Numbers across the arms of one seed (reported under protocol.seedArm); `runs` holds that
   *  seed's measured arms. Only called when seedArm is set. */
  virtual RunMeasurement seedMeasurement(const StudyProtocol&, int64_t /*seed*/,
                                         const std::vector<StudyRunResult>& /*runs*/) {
    return {};
  }
  /** After the auxiliary runs, before any run is measured (e.g. load a judge). */
  virtual void prepareMeasuring(const StudyProtocol&, const std::filesystem::path& /*runs*/,
                                const StudyOptions&) {}
  /** The numbers of a finished run of `arm` (the runner adds the generic ones). */
  virtual RunMeasurement measure(const StudyArm& arm, const std::filesystem::path& run) = 0;
  /** Tables for study.json (see StudyTable), read after the runs; empty when what they come
   *  from does not exist yet (an analysis before afterAuxiliary ran). */
  virtual std::map<std::string, StudyTable> tables(const StudyProtocol&) const { return {}; }
  /** Numbers over every seed at once (protocol.acrossSeedMetrics), from the tables and all
   *  measured runs, as study.json records them: a study's analysis can be redone from its
   *  record alone (and, with options.poolWith, pooled with another study's record). Missing
   *  keys are reported as not computed. */
  virtual std::map<std::string, double> acrossSeeds(
      const StudyProtocol&, const StudyOptions&,
      const std::map<std::string, StudyTable>& /*tables*/,
      const std::vector<StudyRunResult>& /*runs*/) const {
    return {};
  }
};

}  // namespace strata::studies
