// Runs a study (see study_runner.h).

#include "studies/study_runner.h"

#include <algorithm>
#include <optional>
#include <set>

#include "common/error.h"
#include "common/job.h"
#include "common/memory_release.h"
#include "common/text_file.h"
#include "engine/config_schema.h"
#include "engine/recipe_catalog.h"
#include "engine/run_folder.h"
#include "io/atomic_file.h"
#include "studies/report/study_report_reader.h"
#include "studies/study_progress.h"
#include "studies/study_report.h"
#include "studies/study_runs.h"
#include "studies/study_summary.h"

namespace strata::studies {

namespace fs = std::filesystem;

namespace {

struct PlannedRun {
  const StudyArm* arm = nullptr;
  std::optional<int64_t> seed;  ///< none for an auxiliary run
  std::string folderName;
  std::vector<std::string> settings;
  int64_t steps = 0;
};

std::string keyOf(const std::string& assignment) {
  return assignment.substr(0, assignment.find('='));
}

int64_t stepsOf(const std::string& recipe, const std::vector<std::string>& settings) {
  const engine::ConfigSchema schema = engine::recipeSchema(recipe);
  engine::ResolvedConfig config(schema);
  for (const auto& s : settings) engine::applyOverride(schema, s, config);
  return config.integer("steps");
}

/** Every --set key must belong to some recipe of the study, or it would be ignored silently. */
void checkOverrides(const StudyProtocol& p, const StudyOptions& options) {
  for (const auto& o : options.overrides) {
    if (o.find('=') == std::string::npos) throw ConfigError("--set", o, "is not KEY=VALUE");
    bool known = false;
    std::string recipes;
    for (const auto* list : {&p.auxiliary, &p.arms})
      for (const auto& a : *list) {
        known = known || engine::recipeSchema(a.recipe).find(keyOf(o)) != nullptr;
        if (recipes.find(a.recipe) == std::string::npos)
          recipes += (recipes.empty() ? "" : ", ") + a.recipe;
      }
    if (!known)
      throw ConfigError("--set", keyOf(o),
                        "is a setting of none of the study's recipes (" + recipes + ")");
  }
}

std::vector<PlannedRun> planRuns(const StudyProtocol& p, const StudyOptions& options) {
  std::vector<PlannedRun> plan;
  for (const auto& a : p.auxiliary) {
    PlannedRun r{&a, std::nullopt, a.name, studyRunSettings(a.recipe, a.settings, options), 0};
    r.steps = stepsOf(a.recipe, r.settings);
    plan.push_back(r);
  }
  // Seed-major: an interrupted study has whole seeds done first, the arms alternating.
  for (size_t index = 0; index < p.seeds.size(); ++index)
    for (const auto& a : p.arms) {
      if (!a.runsAtSeed(index)) continue;
      const int64_t seed = p.seeds[index];
      std::vector<std::string> base = p.shared;
      base.insert(base.end(), a.settings.begin(), a.settings.end());
      base.push_back("seed=" + std::to_string(seed));
      PlannedRun r{&a, seed, a.name + "-s" + std::to_string(seed),
                   studyRunSettings(a.recipe, base, options), 0};
      r.steps = stepsOf(a.recipe, r.settings);
      plan.push_back(r);
    }
  return plan;
}

/** The protocol of a study folder is fixed by its first run: a rerun must ask for the same. */
void fixProtocol(const fs::path& folder, const std::string& protocol, bool analyseOnly) {
  const fs::path file = folder / "protocol.json";
  if (!fs::exists(file) && analyseOnly)
    throw IoError(file,
                  "does not exist: no study was started in " + folder.string() + " to analyse");
  if (!fs::exists(file)) {
    fs::create_directories(folder);
    io::writeTextAtomically(file, protocol);
    return;
  }
  if (readWholeFile(file) != protocol)
    throw ConfigError(
        file, "protocol",
        "differs from the one asked for now (other --seeds, --budget or --set): a study "
        "folder continues only the protocol it was started with; use another --out");
}

/** How many arms train at `seed`. */
size_t armsAtSeed(const StudyProtocol& p, int64_t seed) {
  const auto index =
      static_cast<size_t>(std::find(p.seeds.begin(), p.seeds.end(), seed) - p.seeds.begin());
  size_t n = 0;
  for (const auto& a : p.arms) n += a.runsAtSeed(index) ? 1 : 0;
  return n;
}

int64_t stepsDoneIn(const fs::path& run, int64_t steps) {
  if (!engine::isRunFolder(run)) return 0;
  const engine::RunStatus status = engine::readRunStatus(run);
  return status.state == engine::RunState::Finished ? steps : std::min(status.step, steps);
}

/** The analysis of `record`'s runs (with the study's statistics across seeds), written as
 *  options.folder's study.json and study.md. */
StudyOutcome analyseAndWrite(const Study& study, const StudyProtocol& protocol,
                             const StudyOptions& options, const StudyRecord& record) {
  StudyOutcome outcome{
      options.folder / "study.json",
      analyseStudy(protocol, record.facts, record.runs,
                   study.acrossSeeds(protocol, options, record.tables, record.runs))};
  writeStudyJson(outcome.studyJson, protocol, options, record, outcome.analysis);
  io::writeTextAtomically(options.folder / "study.md",
                          studySummaryMarkdown(protocol, record.facts, outcome.analysis));
  return outcome;
}

}  // namespace

std::vector<std::string> studyRunSettings(const std::string& recipe,
                                          const std::vector<std::string>& base,
                                          const StudyOptions& options) {
  const engine::ConfigSchema schema = engine::recipeSchema(recipe);
  std::vector<std::string> settings = {"device=" + options.device};
  settings.insert(settings.end(), base.begin(), base.end());
  for (const auto& o : options.overrides)
    if (schema.find(keyOf(o))) settings.push_back(o);
  return settings;
}

std::vector<StudyRunResult> recordedRuns(const StudyReport& report) {
  std::vector<StudyRunResult> runs;
  for (const auto& r : report.runs) {
    RunMeasurement m{r.metrics, r.curves, std::nullopt};
    if (!r.commit.empty()) {  // all the record says of the run's build
      m.code = CodeProvenance();
      m.code->commit = r.commit;
    }
    runs.push_back({r.arm, r.seed, r.folder, m});
  }
  return runs;
}

StudyOutcome reanalyseStudy(Study& study, const StudyOptions& options, const fs::path& file) {
  const StudyProtocol protocol = study.protocol(options);
  const StudyReport report = readStudyReportFile(file);
  if (report.study != protocol.name)
    throw ConfigError(file.string(), "study",
                      "records study " + report.study + ", not " + protocol.name);
  StudyRecord record;
  record.code = codeProvenance();
  record.facts = report.facts;
  record.tables = report.tables;
  record.reanalysedFrom = fs::absolute(file).lexically_normal();
  record.reanalysedCommit = report.commit;
  std::set<std::string> arms = {protocol.seedArm};
  for (const auto& a : protocol.arms) arms.insert(a.name);
  for (const auto& r : report.runs)
    if (!arms.count(r.arm))
      throw ConfigError(file.string(), "runs",
                        "names arm " + r.arm +
                            ", which the protocol asked for now lacks (another "
                            "--set or --budget?)");
  record.runs = recordedRuns(report);
  fs::create_directories(options.folder);
  return analyseAndWrite(study, protocol, options, record);
}

StudyOutcome runStudy(Study& study, const StudyOptions& options, JobContext& job) {
  const StudyProtocol protocol = study.protocol(options);
  StudyRecord record;
  record.code = codeProvenance();  // when the study starts: its checkout may move on meanwhile
  record.facts = study.facts(protocol);
  const std::map<std::string, double>& facts = record.facts;
  checkProtocol(protocol, facts);
  checkOverrides(protocol, options);
  const std::vector<PlannedRun> plan = planRuns(protocol, options);
  fixProtocol(options.folder, protocolJson(protocol, options.overrides), options.analyseOnly);
  const fs::path runs = options.folder / "runs";

  int64_t total = 0, done = 0;
  for (const auto& r : plan) {
    total += r.steps;
    done += stepsDoneIn(runs / r.folderName, r.steps);
  }
  StudyProgressSink progress(job, total, done);
  const std::string command = "strata-cli study " + protocol.name;
  std::vector<StudyRunResult>& results = record.runs;
  bool measuring = false, auxiliaryDone = true;
  for (size_t i = 0; i < plan.size(); ++i) {
    const PlannedRun& r = plan[i];
    const fs::path folder = runs / r.folderName;
    const int64_t before = stepsDoneIn(folder, r.steps);
    if (options.analyseOnly) {  // train nothing; what is not finished is left out
      const bool finished = before >= r.steps;
      if (!r.seed) auxiliaryDone = auxiliaryDone && finished;
      if (!finished || !r.seed) continue;
      if (!auxiliaryDone && !fs::exists(folder / "study_measures.json")) continue;  // no judge yet
    } else if (i == protocol.auxiliary.size()) {
      study.afterAuxiliary(protocol, runs, options, job);
    }
    const std::string label =
        r.folderName + " (" + std::to_string(i + 1) + "/" + std::to_string(plan.size()) + ")";
    if (before < r.steps) job.info(label + (before > 0 ? ": resuming" : ": training"));
    progress.beginRun(label, r.steps, before);
    if (!options.analyseOnly) {
      JobContext context = progress.context();
      trainOrContinue(r.arm->recipe, folder, r.settings, command + " (" + r.folderName + ")",
                      context);
    }
    progress.endRun();
    releaseFreedMemory();  // a run's batches and models, before the next run allocates its own
    job.checkCancelled();
    if (!r.seed) continue;
    const fs::path cache = folder / "study_measures.json";
    std::optional<RunMeasurement> m = readRunMeasurement(cache);
    if (!m) {
      if (!measuring) {  // only when something is left to measure (a judge takes time to load)
        study.prepareMeasuring(protocol, runs, options);
        measuring = true;
      }
      job.progress(static_cast<double>(progress.stepsDone()) /
                       static_cast<double>(std::max<int64_t>(total, 1)),
                   r.folderName + " measuring");
      m = study.measure(*r.arm, folder);
      m->values["train_seconds"] = engine::RunFolder(folder).metrics().trainingSeconds();
      m->code = record.code;  // this process finished the run (it trains in process)
      writeRunMeasurement(cache, *m);
    }
    results.push_back({r.arm->name, *r.seed, folder, *m});
    job.checkCancelled();
    const bool lastOfSeed = i + 1 == plan.size() || plan[i + 1].seed != r.seed;
    std::vector<StudyRunResult> seedRuns;
    for (const auto& result : results)
      if (result.seed == *r.seed) seedRuns.push_back(result);
    // Statistics across the arms of a seed only once every arm of it is measured.
    if (lastOfSeed && !protocol.seedArm.empty() &&
        seedRuns.size() == armsAtSeed(protocol, *r.seed)) {
      results.push_back({protocol.seedArm, *r.seed, options.folder,
                         study.seedMeasurement(protocol, *r.seed, seedRuns)});
    }
  }
  record.tables = study.tables(protocol);
  return analyseAndWrite(study, protocol, options, record);
}

}  // namespace strata::studies
