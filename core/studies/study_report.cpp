// A study's JSON files (see study_report.h).

#include "studies/study_report.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/error.h"
#include "common/provenance.h"
#include "common/text_file.h"
#include "engine/versions.h"
#include "io/atomic_file.h"

namespace strata::studies {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

Json number(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

Json numbers(const std::vector<double>& values) {
  Json list = Json::array();
  for (double v : values) list.push_back(number(v));
  return list;
}

Json summaryJson(const SeedSummary& s) {
  return {{"n", s.n},
          {"mean", number(s.mean)},
          {"sd", number(s.sd)},
          {"low", number(s.low)},
          {"high", number(s.high)},
          {"values", numbers(s.values)}};
}

Json armJson(const StudyArm& a) {
  Json j = {{"name", a.name},
            {"recipe", a.recipe},
            {"settings", a.settings},
            {"description", a.description}};
  if (a.seedLimit > 0) j["seed_limit"] = a.seedLimit;  // absent: every seed
  return j;
}

Json claimJson(const StudyClaim& c) {
  Json j = {{"id", c.id}, {"statement", c.statement}, {"metric", c.metric}, {"arm", c.arm}};
  if (!c.baseline.empty())
    j["baseline"] = c.baseline;
  else if (c.baselineMetric.empty())
    j["reference"] = c.reference;
  if (!c.baselineMetric.empty()) j["baseline_metric"] = c.baselineMetric;
  j["direction"] = c.direction == ClaimDirection::Lower ? "lower" : "higher";
  j["margin"] = c.margin;
  if (!c.candidates.empty()) {
    j["candidates"] = c.candidates;
    j["selection_metric"] = c.selectionMetric;
  }
  if (!c.permutationP.empty()) {  // absent for claims decided by the interval alone
    j["permutation_p"] = c.permutationP;
    j["permutation_alpha"] = c.permutationAlpha;
    j["permutation_decides"] = c.permutationDecides;
  }
  return j;
}

Json protocolObject(const StudyProtocol& p, const std::vector<std::string>& overrides) {
  Json arms = Json::array(), auxiliary = Json::array(), metrics = Json::array(),
       claims = Json::array();
  for (const auto& a : p.arms) arms.push_back(armJson(a));
  for (const auto& a : p.auxiliary) auxiliary.push_back(armJson(a));
  for (const auto& m : p.metrics)
    metrics.push_back({{"key", m.key}, {"label", m.label}, {"lower_is_better", m.lowerIsBetter}});
  for (const auto& c : p.claims) claims.push_back(claimJson(c));
  Json j = {{"budget", p.budget},
            {"budget_note", p.budgetNote},
            {"seeds", p.seeds},
            {"arms", arms},
            {"auxiliary", auxiliary},
            {"shared_settings", p.shared},
            {"overrides", overrides},
            {"metrics", metrics},
            {"curves", p.curves},
            {"claims", claims},
            {"headline", p.headline},
            {"decision_rule", decisionRuleText()},
            {"statistics",
             {{"summary", "mean and sample sd (n − 1) over seeds"},
              {"interval",
               "percentile bootstrap of the mean over seeds, quantiles interpolated linearly"},
              {"level", p.bootstrap.level},
              {"resamples", p.bootstrap.resamples},
              {"bootstrap_seed", p.bootstrap.seed},
              {"comparisons",
               "paired by seed: arm − baseline at the same seed (same data order and "
               "initial draw where the recipe seeds them alike)"}}}};
  if (!p.seedArm.empty()) j["seed_arm"] = p.seedArm;       // absent for studies without one
  if (!p.measuring.empty()) j["measuring"] = p.measuring;  // absent for most studies
  if (!p.acrossSeedMetrics.empty()) {
    Json across = Json::array();
    for (const auto& m : p.acrossSeedMetrics)
      across.push_back({{"key", m.key}, {"label", m.label}});
    j["across_seed_metrics"] = across;
  }
  return j;
}

Json codeJson(const CodeProvenance& c) {
  return {{"version", c.version},        {"build_type", c.buildType},
          {"compiler", c.compiler},      {"cuda", c.withCuda},
          {"executable", c.executable},  {"executable_time", c.executableTime},
          {"source_tree", c.sourceTree}, {"commit", c.commit},
          {"commit_time", c.commitTime}, {"changes", c.changes}};
}

CodeProvenance codeOf(const Json& j) {
  CodeProvenance c;
  c.version = j.value("version", std::string());
  c.buildType = j.value("build_type", std::string());
  c.compiler = j.value("compiler", std::string());
  c.withCuda = j.value("cuda", false);
  c.executable = j.value("executable", std::string());
  c.executableTime = j.value("executable_time", std::string());
  c.sourceTree = j.value("source_tree", std::string());
  c.commit = j.value("commit", std::string());
  c.commitTime = j.value("commit_time", std::string());
  c.changes = j.value("changes", std::vector<std::string>());
  return c;
}

Json seriesJson(const std::vector<std::pair<int64_t, double>>& series) {
  Json points = Json::array();
  for (const auto& [step, v] : series) points.push_back({step, number(v)});
  return points;
}

/** Each seed's value of `curve` for `arm` at every step of the summary (null where that seed
 *  did not log the step), so the mean and band can be recomputed and every seed drawn. */
Json seedCurves(const std::vector<StudyRunResult>& runs, const std::string& arm,
                const std::string& curve, const std::vector<int64_t>& steps) {
  Json seeds = Json::object();
  for (const auto& r : runs) {
    if (r.arm != arm) continue;
    const auto found = r.measurement.curves.find(curve);
    if (found == r.measurement.curves.end()) continue;
    const std::map<int64_t, double> byStep(found->second.begin(), found->second.end());
    Json values = Json::array();
    for (int64_t step : steps) {
      const auto v = byStep.find(step);
      values.push_back(v == byStep.end() ? Json(nullptr) : number(v->second));
    }
    seeds[std::to_string(r.seed)] = values;
  }
  return seeds;
}

Json tableJson(const StudyTable& t) {
  Json rows = Json::array();
  for (const auto& row : t.rows) rows.push_back(numbers(row));
  return {{"description", t.description}, {"columns", t.columns}, {"rows", rows}};
}

}  // namespace

void writeStudyJson(const fs::path& file, const StudyProtocol& p, const StudyOptions& options,
                    const StudyRecord& record, const StudyAnalysis& a) {
  const std::map<std::string, double>& facts = record.facts;
  const std::vector<StudyRunResult>& runs = record.runs;
  Json j = {{"study", p.name},
            {"title", p.title},
            {"question", p.question},
            {"protocol", protocolObject(p, options.overrides)}};
  j["code_version"] = record.code.version;
  j["build"] = record.code.buildType + ", " + record.code.compiler;
  j["code"] = codeJson(record.code);
  j["machine"] = {{"host", hostName()},
                  {"cpus", std::thread::hardware_concurrency()},
                  {"device", options.device},
                  {"libtorch", engine::libraryVersions().libtorch}};
  j["date"] = utcNow();
  if (!record.reanalysedFrom.empty())
    j["reanalysed_from"] = {{"file", record.reanalysedFrom.string()},
                            {"commit", record.reanalysedCommit},
                            {"note",
                             "the runs, facts and tables are the record's; the analysis (claims, "
                             "statistics across seeds) is this build's"}};
  Json factsJson = Json::object();
  for (const auto& [k, v] : facts) factsJson[k] = number(v);
  j["facts"] = factsJson;
  Json runList = Json::array();
  for (const auto& r : runs) {
    Json metrics = Json::object();
    for (const auto& [k, v] : r.measurement.values) metrics[k] = number(v);
    Json curves = Json::object();
    for (const auto& [name, series] : r.measurement.curves) curves[name] = seriesJson(series);
    Json entry = {{"arm", r.arm},
                  {"seed", r.seed},
                  {"folder", r.folder.string()},
                  {"metrics", metrics},
                  {"curves", curves}};
    if (r.measurement.code) entry["code"] = codeJson(*r.measurement.code);  // the run's own build
    runList.push_back(entry);
  }
  j["runs"] = runList;
  Json aggregates = Json::object();
  std::vector<std::string> armNames;
  for (const auto& arm : p.arms) armNames.push_back(arm.name);
  if (!p.seedArm.empty()) armNames.push_back(p.seedArm);
  for (const auto& name : armNames) {
    const auto found = a.aggregates.find(name);
    if (found == a.aggregates.end()) continue;
    Json perMetric = Json::object();
    for (const auto& m : p.metrics) {
      const auto s = found->second.find(m.key);
      if (s != found->second.end()) perMetric[m.key] = summaryJson(s->second);
    }
    aggregates[name] = perMetric;
  }
  j["aggregates"] = aggregates;
  Json curves = Json::object();
  for (const auto& [curve, perArm] : a.curves) {
    Json arms = Json::object();
    for (const auto& arm : p.arms) {
      const auto found = perArm.find(arm.name);
      if (found == perArm.end()) continue;
      std::vector<double> mean, low, high;
      for (const auto& s : found->second.points) {
        mean.push_back(s.mean);
        low.push_back(s.low);
        high.push_back(s.high);
      }
      arms[arm.name] = {{"step", found->second.steps},
                        {"mean", numbers(mean)},
                        {"low", numbers(low)},
                        {"high", numbers(high)},
                        {"seeds", seedCurves(runs, arm.name, curve, found->second.steps)}};
    }
    curves[curve] = arms;
  }
  j["curves"] = curves;
  Json tables = Json::object();
  for (const auto& [name, table] : record.tables) tables[name] = tableJson(table);
  j["tables"] = tables;
  if (!p.acrossSeedMetrics.empty()) {
    Json across = Json::object();  // every declared key, null where it was not computed
    for (const auto& m : p.acrossSeedMetrics) {
      const auto found = a.acrossSeeds.find(m.key);
      across[m.key] = number(found != a.acrossSeeds.end() ? found->second : std::nan(""));
    }
    j["across_seeds"] = across;
  }
  Json claims = Json::array();
  for (const auto& c : a.claims) {
    Json cj = claimJson(c.claim);  // with a selection, "arm" is the selected candidate
    if (!c.selection.empty()) {
      Json means = Json::object();
      for (const auto& [arm, mean] : c.selection) means[arm] = number(mean);
      cj["selection"] = means;
    }
    cj["difference"] = summaryJson(c.difference);
    cj["verdict"] = {{"result", c.verdict.result}, {"reason", c.verdict.reason}};
    claims.push_back(cj);
  }
  j["claims"] = claims;
  j["complete"] = a.complete();
  j["runs_measured"] = a.runsMeasured;
  j["runs_planned"] = a.runsPlanned;
  j["verdict"] = {{"result", a.verdict.result}, {"reason", a.verdict.reason}};
  io::writeTextAtomically(file, j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n");
}

std::string protocolJson(const StudyProtocol& p, const std::vector<std::string>& overrides) {
  Json j = {{"study", p.name}, {"protocol", protocolObject(p, overrides)}};
  return j.dump(2) + "\n";
}

void writeRunMeasurement(const fs::path& file, const RunMeasurement& m) {
  Json values = Json::object(), curves = Json::object();
  for (const auto& [k, v] : m.values) values[k] = number(v);
  for (const auto& [k, series] : m.curves) curves[k] = seriesJson(series);
  Json j = {{"values", values}, {"curves", curves}};
  if (m.code) j["code"] = codeJson(*m.code);
  io::writeTextAtomically(file, j.dump(1) + "\n");
}

std::optional<RunMeasurement> readRunMeasurement(const fs::path& file) {
  if (!fs::exists(file)) return std::nullopt;
  try {
    const Json j = Json::parse(readWholeFile(file));
    RunMeasurement m;
    for (const auto& [k, v] : j.at("values").items())
      m.values[k] = v.is_null() ? std::nan("") : v.get<double>();
    for (const auto& [k, points] : j.at("curves").items())
      for (const auto& p : points)
        m.curves[k].emplace_back(p.at(0).get<int64_t>(),
                                 p.at(1).is_null() ? std::nan("") : p.at(1).get<double>());
    if (j.contains("code")) m.code = codeOf(j.at("code"));
    return m;
  } catch (const nlohmann::json::exception& e) {
    throw FormatError(file, std::string("is not a study measurement: ") + e.what(), {}, "key");
  }
}

}  // namespace strata::studies
